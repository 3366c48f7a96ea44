/**
 * The full-text index of a drive's nodes (eventually consistent: the files search consumer feeds
 * it from the change log). One document per node: its name, its current version's detected type
 * and, for a text-like version, the words of its text. Queries filter by the reader's access and
 * by active nodes inside the query, before the limit.
 */
import { Context, type Effect } from "effect";
import type { Node } from "../../core/files/model/Node.js";

/** What the index holds of one node, as of one change of its drive's log. */
export interface NodeSearchEntry {
  readonly workspaceId: string;
  readonly nodeId: string;
  /** The node's name as searchable words (core/kernel/SearchTerms.ts `searchableText`). */
  readonly name: string;
  /** The current version's detected content type (its declared one when undetected); null without a current version. */
  readonly contentType: string | null;
  /** The node's current version, the only one whose text the document may hold; null when none. */
  readonly versionId: string | null;
  /** The change (its seq in the drive's log) the entry describes: an older one never overwrites a newer. */
  readonly seq: number;
}

/**
 * What `upsert` did: refused an entry not newer than the stored document (`stale`), or wrote it
 * keeping the stored text (`text_kept`: the same version, or none), or wrote it for another
 * version than the stored text's, which it cleared (`text_cleared`: the version's text is wanted).
 */
export type NodeSearchWrite = "stale" | "text_kept" | "text_cleared";

/** A stored document (for reads that check what is indexed). */
export interface NodeSearchDocument extends NodeSearchEntry {
  readonly text: string;
}

/**
 * A visible match and its position in the index's order: an opaque, stable keyset key (the
 * adapter's: newest first, e.g. the order documents were first indexed in, or the node's id).
 */
export interface NodeSearchHit {
  readonly node: Node;
  readonly position: string;
}

/** What a search answers: the visible matches in order, and where the scan stopped when its bound did. */
export interface NodeSearchPage {
  readonly hits: ReadonlyArray<NodeSearchHit>;
  /** The position of the last match examined when the bound stopped the search short of `limit` hits; null when it did not. */
  readonly scannedTo: string | null;
}

export interface NodeSearchIndex {
  /**
   * Writes the node's document as `entry` says, unless the stored one describes a change at or
   * after `entry.seq`, or the node no longer exists (both `stale`).
   */
  readonly upsert: (entry: NodeSearchEntry) => Effect.Effect<NodeSearchWrite>;
  /** Sets the words of the text of the node's document while it is still of `versionId`; answers whether it did. */
  readonly setText: (workspaceId: string, nodeId: string, versionId: string, text: string) => Effect.Effect<boolean>;
  /**
   * Gives at most `limit` documents that have a content type but no version — those files
   * migration 9 wrote for the files stored before it — their node's current version (a node that
   * lost it since keeps none, and its type is cleared); answers each document's node and the
   * version it now has (null for those). The indexer never writes a type without a version.
   */
  readonly adoptCurrentVersions: (limit: number) => Effect.Effect<ReadonlyArray<{ readonly workspaceId: string; readonly nodeId: string; readonly versionId: string | null }>>;
  /** The node's document, or null. */
  readonly find: (workspaceId: string, nodeId: string) => Effect.Effect<NodeSearchDocument | null>;
  /**
   * Active (untrashed) nodes of the workspace whose document matches every term (each a prefix of
   * a word) — in its name, or in its name and text while that text is of the node's current
   * version — that `userId` can see (a grant on the node or an ancestor), strictly after the
   * position `after`, newest first in the index's order, at most `limit`: filtered before the limit.
   * A reader who sees part of the drive (no grant on its root) gets exactly that: `limit` hits
   * unless the list ends, never a short answer because hidden matches were counted, and
   * `scannedTo` null (conventions, Lists: a caller never learns that hidden rows exist). A reader
   * with a grant on the root, who sees every active node, has the matches examined in that order,
   * at most the adapter's bound per search (a few thousand):
   * when the bound is reached before `limit` visible nodes are found, the answer holds those found
   * so far and `scannedTo`, the position of the last match examined, so a next search after it
   * goes on where this one stopped (the cost of a search is bounded, not the matches). Positions
   * are the same either way: a position from one goes on in the other.
   */
  readonly search: (req: {
    readonly workspaceId: string;
    readonly userId: string;
    readonly terms: ReadonlyArray<string>;
    readonly after?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<NodeSearchPage>;
}
export const NodeSearchIndex = Context.GenericTag<NodeSearchIndex>("domainkit/files/NodeSearchIndex");
