/** Storage for editing comments: the comment with its edit version, and a version-checked update. */
import { Context, Effect } from "effect";
import type { Comment } from "../../core/projects/model/Comment.js";

/** The comment-edit port (over `pm_comments`, whose `version` column counts edits). */
export interface CommentEdits {
  readonly findComment: (id: string) => Effect.Effect<{ readonly comment: Comment; readonly version: number } | null>;
  /** Writes body and mentions if the version is still `expectedVersion` (then version + 1). */
  readonly updateContent: (req: {
    readonly id: string;
    readonly body: string;
    readonly mentions: ReadonlyArray<string>;
    readonly editedAt: Date;
    readonly expectedVersion: number;
  }) => Effect.Effect<boolean>;
  /** The versions of the comments `ids` that exist, by id (one read for a page of comments). */
  readonly versionsOf: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>>;
}
export const CommentEdits = Context.GenericTag<CommentEdits>("domainkit/projects/CommentEdits");
