/**
 * Contract kit for NodeSearchIndex (ports/files/NodeSearchIndex.ts): a node's document is written
 * only by a newer change than the one it describes; moving it to another version clears its text,
 * the same version keeps it, and text is set only while the document is of that version. A search
 * matches every term as a word prefix — in the name, or in the name and text while the text is of
 * the node's current version — among the active nodes of the workspace the reader can see (a grant
 * on the node or an ancestor), newest first in the index's order, strictly after a hit's position,
 * filtered before the limit; a search examines a bounded number of matches and, when the bound comes
 * first, answers where it stopped, so searches going on from there find every visible match once
 * (run with the adapter's own bound and with a small one) — but a reader who sees part of the drive
 * never gets a short answer because hidden matches came first; a purged node's document goes with
 * it. (Terms are letters and digits: the kernel's SearchTerms cleans them first.)
 */
import { Effect } from "effect";
import type { AclEntry } from "../../../core/files/model/AclEntry.js";
import type { Node } from "../../../core/files/model/Node.js";
import { NodeSearchIndex, type NodeSearchEntry, type NodeSearchHit } from "../../../ports/files/NodeSearchIndex.js";
import { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { TrashPurgeRepository } from "../../../ports/files/TrashPurgeRepository.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { inTransaction, nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import { versionRecord } from "./VersionsRepositoryKit.js";

/** The ports this kit needs: the index, and the drive, nodes, grants and versions its documents are of. */
export type NodeSearchIndexKitPorts = NodeSearchIndex | NodesRepository | VersionsRepository | TrashPurgeRepository | DriveSeedPorts;

const index = <A>(f: (r: NodeSearchIndex) => Effect.Effect<A>) => Effect.flatMap(NodeSearchIndex, f);
const nodes = <A>(f: (r: NodesRepository) => Effect.Effect<A>) => Effect.flatMap(NodesRepository, f);

/** The entry of `node` named `name` at change `seq`, of version `versionId`. */
const entry = (node: Node, name: string, seq: number, versionId: string | null = null): NodeSearchEntry => ({
  workspaceId: node.workspaceId,
  nodeId: node.id,
  name,
  contentType: versionId === null ? null : "text/plain",
  versionId,
  seq,
});

const viewer = (node: Node, userId: string): AclEntry => ({ workspaceId: node.workspaceId, nodeId: node.id, userId, role: "viewer", grantedBy: "kit-user", createdAt: at(0) });

/** Publishes version `n` (number `number`) of `file` and makes it the node's current version; answers the node as updated. */
const makeCurrent = (file: Node, n: number, number: number) =>
  inTransaction(
    Effect.gen(function* () {
      const version = versionRecord(file.workspaceId, file.id, n, number);
      const versions = yield* VersionsRepository;
      yield* versions.insert(version);
      yield* versions.transition({ workspaceId: file.workspaceId, id: version.id, from: ["quarantined"], to: "published", makeCurrent: true, scanDetail: null, at: at(n) });
      const updated: Node = { ...file, currentVersionId: version.id, sizeBytes: version.sizeBytes, contentType: version.contentType, sha256: version.sha256, version: file.version + 1 };
      yield* nodes((r) => r.update(updated, file.version));
      return updated;
    }),
  );

/** The names a search finds (following `scannedTo` until `limit` hits or the end, as searchNodes's client would). */
const search = (workspaceId: string, userId: string, terms: ReadonlyArray<string>, limit = 10, after?: string) =>
  searchHits(workspaceId, userId, terms, limit, after).pipe(Effect.map((hits) => hits.map((h) => h.node.name)));

/** The hits of a search, going on from `scannedTo` while the bound stops it short of `limit`. */
const searchHits = (workspaceId: string, userId: string, terms: ReadonlyArray<string>, limit: number, after?: string): Effect.Effect<ReadonlyArray<NodeSearchHit>, never, NodeSearchIndex> =>
  Effect.gen(function* () {
    const hits: NodeSearchHit[] = [];
    let from = after;
    for (;;) {
      const page = yield* index((r) => r.search({ workspaceId, userId, terms, after: from, limit: limit - hits.length }));
      hits.push(...page.hits);
      if (page.scannedTo === null || hits.length >= limit) return hits;
      from = page.scannedTo;
    }
  });

/**
 * A drive of 32 "otter" matches: "otter shared" (granted to "reader") and "otter hidden", and 30
 * more, every third under the shared folder and the others under the hidden one (the newest
 * hidden first); `expected` is what "reader" may find, newest first.
 */
const seedOtters = async (run: Run<NodeSearchIndexKitPorts>) => {
  const { workspaceId, root } = await run(seedDrive(1));
  const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "otter shared")));
  const hidden = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "otter hidden")));
  await run(index((r) => r.upsert(entry(shared, shared.name, 1))));
  await run(index((r) => r.upsert(entry(hidden, hidden.name, 1))));
  const visible: string[] = [];
  for (let i = 1; i <= 30; i++) {
    const name = `otter ${String(i).padStart(2, "0")}`;
    const node = await run(seedNode(nodeRecord(workspaceId, 10 + i, i % 3 === 0 ? shared.id : hidden.id, name)));
    await run(index((r) => r.upsert(entry(node, node.name, 1))));
    if (i % 3 === 0) visible.push(name);
  }
  await run(nodes((r) => r.putGrant(viewer(shared, "reader"))));
  return { workspaceId, expected: [...visible.reverse(), "otter shared"] };
};

/** The cases of the NodeSearchIndex kit. */
export const nodeSearchIndexCases: ReadonlyArray<KitCase<NodeSearchIndexKitPorts>> = [
  {
    name: "node search: a document is written only by a newer change; another version clears its text, the same keeps it; text is set only for the document's version",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const file = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "a.txt", "file")));
      t.equal(await run(index((r) => r.upsert(entry(file, "a txt", 2)))), "text_kept", "a new document without a version");
      t.same(await run(index((r) => r.find(workspaceId, file.id))), { ...entry(file, "a txt", 2), text: "" }, "stored as given, without text");
      t.equal(await run(index((r) => r.upsert(entry(file, "stale", 2)))), "stale", "the same change");
      t.equal(await run(index((r) => r.upsert(entry(file, "stale", 1)))), "stale", "an older change");
      t.equal(await run(index((r) => r.upsert(entry(file, "a txt", 3, "v1")))), "text_cleared", "a version: its text is wanted");
      t.equal(await run(index((r) => r.setText(workspaceId, file.id, "v1", "zebra crossing"))), true);
      t.equal(await run(index((r) => r.upsert(entry(file, "b txt", 4, "v1")))), "text_kept", "a rename keeps the version's text");
      t.same(await run(index((r) => r.find(workspaceId, file.id))), { ...entry(file, "b txt", 4, "v1"), text: "zebra crossing" });
      t.equal(await run(index((r) => r.setText(workspaceId, file.id, "v2", "quagga"))), false, "not the document's version: refused");
      t.equal(await run(index((r) => r.upsert(entry(file, "b txt", 5, "v2")))), "text_cleared", "another version clears the text");
      t.equal((await run(index((r) => r.find(workspaceId, file.id))))?.text, "");
      t.equal(await run(index((r) => r.setText(workspaceId, file.id, "v1", "zebra"))), false, "the older version's text never comes back");
      t.equal(await run(index((r) => r.find(workspaceId, root.id))), null, "no document, null");
      const other = await run(seedDrive(2));
      t.equal(await run(index((r) => r.find(other.workspaceId, file.id))), null, "nor under another workspace");
    },
  },
  {
    name: "node search: documents with a type but no version (migration 9's) adopt their node's current version, once; others are left as they are",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const folder = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Folder")));
      const stored = await run(makeCurrent(await run(seedNode(nodeRecord(workspaceId, 2, root.id, "stored.txt", "file"))), 1, 1));
      const versionless = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "empty.txt", "file")));
      const typed = (node: Node, name: string): NodeSearchEntry => ({ ...entry(node, name, 1), contentType: "text/plain" });
      await run(index((r) => r.upsert(entry(folder, "folder", 1))));
      await run(index((r) => r.upsert(typed(stored, "stored txt"))));
      await run(index((r) => r.upsert(typed(versionless, "empty txt"))));
      const adopted = await run(index((r) => r.adoptCurrentVersions(10)));
      t.same(
        [...adopted].sort((a, b) => a.nodeId.localeCompare(b.nodeId)),
        [
          { workspaceId, nodeId: stored.id, versionId: stored.currentVersionId },
          { workspaceId, nodeId: versionless.id, versionId: null },
        ].sort((a, b) => a.nodeId.localeCompare(b.nodeId)),
        "the typed documents: the current version, or none",
      );
      t.same(await run(index((r) => r.find(workspaceId, stored.id))), { ...typed(stored, "stored txt"), versionId: stored.currentVersionId, text: "" }, "adopted, its change kept");
      t.same(await run(index((r) => r.find(workspaceId, versionless.id))), { ...entry(versionless, "empty txt", 1), text: "" }, "a node without a current version: its type is cleared");
      t.same(await run(index((r) => r.find(workspaceId, folder.id))), { ...entry(folder, "folder", 1), text: "" }, "an untyped document is not touched");
      t.same(await run(index((r) => r.adoptCurrentVersions(10))), [], "nothing is adopted twice");
    },
  },
  {
    name: "node search: every term a word prefix, in the name, or in the text while it is of the node's current version",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      await run(nodes((r) => r.putGrant(viewer(root, "reader"))));
      const folder = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Budget plans")));
      const file = await run(makeCurrent(await run(seedNode(nodeRecord(workspaceId, 2, folder.id, "notes.txt", "file"))), 1, 1));
      await run(index((r) => r.upsert(entry(folder, "budget plans", 1))));
      await run(index((r) => r.upsert(entry(file, "notes txt", 2, file.currentVersionId))));
      await run(index((r) => r.setText(workspaceId, file.id, file.currentVersionId!, "the zebra crossing budget")));
      t.same(await run(search(workspaceId, "reader", ["budget"])), ["notes.txt", "Budget plans"], "name or text; newest first");
      t.same(await run(search(workspaceId, "reader", ["zeb", "cross"])), ["notes.txt"], "every term, each as a prefix");
      t.same(await run(search(workspaceId, "reader", ["notes", "zebra"])), ["notes.txt"], "terms across name and text");
      t.same(await run(search(workspaceId, "reader", ["ebra"])), [], "a prefix, not any substring");
      t.same(await run(search(workspaceId, "reader", [])), [], "no term, no hit");
      // A newer version becomes current before the indexer caught up: the old text no longer matches.
      const newer = await run(makeCurrent(file, 2, 2));
      t.same(await run(search(workspaceId, "reader", ["zebra"])), [], "text of a version that is not current is never matched");
      t.same(await run(search(workspaceId, "reader", ["notes"])), ["notes.txt"], "the name still is");
      await run(index((r) => r.upsert(entry(newer, "notes txt", 3, newer.currentVersionId))));
      await run(index((r) => r.setText(workspaceId, file.id, newer.currentVersionId!, "quagga herd")));
      t.same(await run(search(workspaceId, "reader", ["quagga"])), ["notes.txt"]);
    },
  },
  {
    name: "node search: only active nodes of the workspace the reader can see (a grant on the node or an ancestor), strictly before the cursor, filtered before the limit",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "lynx shared")));
      const inside = await run(seedNode(nodeRecord(workspaceId, 2, shared.id, "lynx inside")));
      const hidden = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "lynx hidden")));
      const deep = await run(seedNode(nodeRecord(workspaceId, 4, hidden.id, "lynx deep")));
      const elsewhere = await run(seedNode(nodeRecord(other.workspaceId, 5, other.root.id, "lynx elsewhere")));
      const deeper = await run(seedNode(nodeRecord(workspaceId, 6, inside.id, "lynx deeper")));
      for (const [node, seq] of [[shared, 1], [inside, 2], [hidden, 3], [deep, 4], [elsewhere, 1], [deeper, 5]] as const) await run(index((r) => r.upsert(entry(node, node.name, seq))));
      await run(nodes((r) => r.putGrant(viewer(shared, "reader"))));
      await run(nodes((r) => r.putGrant(viewer(other.root, "reader"))));
      t.same(await run(search(workspaceId, "reader", ["lynx"])), ["lynx deeper", "lynx inside", "lynx shared"], "the granted node and everything below it, of this workspace");
      t.same(await run(search(workspaceId, "reader", ["lynx"], 1)), ["lynx deeper"], "the hidden newer nodes do not take the page");
      const insidePosition = (await run(searchHits(workspaceId, "reader", ["lynx"], 10))).find((h) => h.node.id === inside.id)!.position;
      t.same(await run(search(workspaceId, "reader", ["lynx"], 10, insidePosition)), ["lynx shared"], "strictly after the position");
      t.same(await run(search(workspaceId, "stranger", ["lynx"])), [], "no grant, nothing");
      t.same(await run(search(other.workspaceId, "reader", ["lynx"])), ["lynx elsewhere"]);
      const trashed: Node = { ...shared, trashedAt: at(9), trashRootId: shared.id, version: 2 };
      await run(nodes((r) => r.update(trashed, 1)));
      await run(nodes((r) => r.update({ ...inside, trashedAt: at(9), trashRootId: shared.id, version: 2 }, 1)));
      await run(nodes((r) => r.update({ ...deeper, trashedAt: at(9), trashRootId: shared.id, version: 2 }, 1)));
      t.same(await run(search(workspaceId, "reader", ["lynx"])), [], "trashed nodes are not found");
    },
  },
  {
    name: "node search: a broad query examines a bounded number of matches per search; going on from where each stopped finds every visible match once, and no hidden one",
    run: async (t, run) => {
      const { workspaceId, expected } = await seedOtters(run);
      const first = await run(index((r) => r.search({ workspaceId, userId: "reader", terms: ["otter"], limit: 50 })));
      // Pages of 2 (3 asked, as searchNodes asks limit + 1), each going on after the last hit or where the scan stopped.
      const seen: string[] = [];
      const positions = new Set<string>();
      let after: string | undefined;
      let searches = 0;
      let shortWithPosition = 0;
      for (;;) {
        const page = await run(index((r) => r.search({ workspaceId, userId: "reader", terms: ["otter"], after, limit: 3 })));
        searches++;
        for (const hit of page.hits.slice(0, 2)) {
          seen.push(hit.node.name);
          positions.add(hit.position);
        }
        if (page.hits.length === 3) after = page.hits[1]!.position;
        else if (page.scannedTo !== null) {
          shortWithPosition++;
          after = page.scannedTo;
        } else break;
        if (searches > 100) break;
      }
      t.same(seen, expected, "every visible match once, in order, no hidden one");
      t.equal(positions.size, seen.length, "each hit has its own position");
      if (first.scannedTo === null) {
        t.same(first.hits.map((h) => h.node.name), expected, "an adapter whose bound covers the 32 matches answers them all at once");
      } else {
        t.ok(first.hits.length < expected.length, "the bound stopped the first search short of the page");
        t.ok(shortWithPosition > 0, "short pages go on from where the scan stopped");
      }
      const stranger = await run(index((r) => r.search({ workspaceId, userId: "stranger", terms: ["otter"], limit: 3 })));
      t.same(stranger.hits, [], "a reader who sees nothing gets no hit");
      if (stranger.scannedTo !== null) t.same(await run(search(workspaceId, "stranger", ["otter"], 3)), [], "and none on any later search");
    },
  },
  {
    name: "node search: a reader who sees part of the drive never gets a short page: each search answers `limit` visible hits or ends the list, however many hidden matches come first",
    run: async (t, run) => {
      const { workspaceId, expected } = await seedOtters(run);
      const seen: string[] = [];
      const sizes: number[] = [];
      let after: string | undefined;
      for (let searches = 0; searches < 100; searches++) {
        const page = await run(index((r) => r.search({ workspaceId, userId: "reader", terms: ["otter"], after, limit: 3 })));
        t.equal(page.scannedTo, null, "no search stops short at the bound");
        seen.push(...page.hits.map((h) => h.node.name));
        sizes.push(page.hits.length);
        if (page.hits.length < 3) break;
        after = page.hits[2]!.position;
      }
      t.same(seen, expected, "every visible match once, in order, no hidden one");
      t.same(sizes, [3, 3, 3, 2], "full pages, the last one short as it ends the list");
      t.same(await run(index((r) => r.search({ workspaceId, userId: "stranger", terms: ["otter"], limit: 3 }))), { hits: [], scannedTo: null }, "a reader who sees nothing: no hit, and the list ends");
    },
  },
  {
    name: "node search: a purged node's document goes with it",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      await run(nodes((r) => r.putGrant(viewer(root, "reader"))));
      const folder = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "heron folder")));
      const child = await run(seedNode(nodeRecord(workspaceId, 2, folder.id, "heron child")));
      for (const [node, seq] of [[folder, 1], [child, 2]] as const) await run(index((r) => r.upsert(entry(node, node.name, seq))));
      await run(nodes((r) => r.update({ ...folder, trashedAt: at(9), trashRootId: folder.id, version: 2 }, 1)));
      await run(nodes((r) => r.update({ ...child, trashedAt: at(9), trashRootId: folder.id, version: 2 }, 1)));
      await run(inTransaction(Effect.flatMap(TrashPurgeRepository, (r) => r.reduceToStubs(workspaceId, folder.id, at(10)))));
      t.same([await run(index((r) => r.find(workspaceId, folder.id))), await run(index((r) => r.find(workspaceId, child.id)))], [null, null], "no document left");
      t.equal(await run(index((r) => r.upsert(entry(child, "heron child", 3)))), "stale", "nor written again for a node that is gone");
      t.equal(await run(index((r) => r.find(workspaceId, child.id))), null);
    },
  },
];

/** Runs the NodeSearchIndex kit. */
export const nodeSearchIndexSuite = (options: SuiteOptions<NodeSearchIndexKitPorts>): Promise<unknown> => runCases(options, nodeSearchIndexCases);
