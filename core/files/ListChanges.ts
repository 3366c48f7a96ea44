/**
 * `GET /v1/changes?workspace_id=&cursor=` (spec: "Ordered tenant sync changes"): a member reads
 * the workspace's change log in sequence order, filtered by current access in the query (before
 * the limit). Each item carries the node as it is now, or its tombstone once trashed; a node that
 * left the caller's view (moved out of reach, grant revoked) comes as `node.left_view` with a
 * tombstone (LeftView.ts); one that entered it (granted, moved into reach, the root when invited
 * back) as `node.entered_view` with the node as it is now: list it and its subtree (EnteredView.ts).
 * `next_cursor` is never null: a sync client keeps it to ask for later changes. The work of a page
 * is bounded (ChangesRepository.list): a caller who sees little of a busy log may get a short
 * page with `has_more` and a cursor past what was read. A cursor from
 * before the retention window answers cursor_expired with a restart point (the current end of
 * the log, to continue from after a full listing).
 * A user who is no longer a member, but to whom left-view changes are addressed (their removal's
 * `node.left_view` of the root, MemberRemoval.ts), reads those changes only, so their client
 * learns to drop its copy; anyone else who is not a member gets 404, as before. Invited back,
 * they read the root's `node.entered_view` (MemberAddition.ts) and then the normal feed.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor } from "../kernel/Cursor.js";
import { NotFound, type InvalidCursor } from "../kernel/Errors.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { ensureDrive } from "./Drives.js";
import { CursorExpired } from "./Errors.js";
import type { ChangeItem, ChangePage } from "./model/Change.js";
import type { Drive } from "./model/Drive.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The key of a change cursor: `[seq]`. */
export const ChangeCursorKey = Schema.Tuple(Schema.Int);

/** The cursor that continues after `seq`. */
export const changeCursor = (seq: number): string => encodeCursor([seq]);

/** The drive of a workspace `userId` is no member of, when left-view changes of its log are addressed to them; else NotFound. */
const formerMemberDrive = (workspaceId: string, userId: string): Effect.Effect<Drive, NotFound, DriveRepository | ChangesRepository> =>
  Effect.gen(function* () {
    const drive = yield* (yield* DriveRepository).find(workspaceId);
    if (drive === null || !(yield* (yield* ChangesRepository).hasAddressedTo(workspaceId, userId))) return yield* Effect.fail(new NotFound({ resource: "workspace" }));
    return drive;
  });

/** One page of changes the caller may see. */
export const listChanges = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<ChangePage, NotFound | InvalidCursor | CursorExpired, FilesServices> =>
  Effect.gen(function* () {
    const changes = yield* ChangesRepository;
    const standing = yield* (yield* WorkspaceDirectory).standing(input.workspaceId, input.userId);
    // A former member: the drive exists (their changes are in its log), and only the drops addressed to them.
    const drive = standing !== null ? yield* ensureDrive(input.workspaceId, input.userId) : yield* formerMemberDrive(input.workspaceId, input.userId);
    const afterSeq = input.cursor === null ? drive.prunedThroughSeq : (yield* decodeCursor(ChangeCursorKey, input.cursor))[0];
    if (afterSeq < drive.prunedThroughSeq) {
      const restartCursor = changeCursor(drive.changeSeq);
      return yield* Effect.fail(new CursorExpired({ restartCursor, detail: "the cursor is older than the change window: list the tree again, then continue from restart_cursor" }));
    }
    const scan = yield* changes.list({ workspaceId: input.workspaceId, userId: input.userId, afterSeq, limit: input.limit + 1, addressedOnly: standing === null });
    const page = scan.items.slice(0, input.limit);
    const data: ReadonlyArray<ChangeItem> = page.map(({ change, node }) =>
      change.type === "node.left_view"
        ? // Out of the caller's view: a tombstone that says nothing of where the node is now.
          { seq: change.seq, nodeId: change.nodeId, type: change.type, node: null, tombstone: { id: node.id, parentId: null, kind: node.kind, trashedAt: null } }
        : {
            seq: change.seq,
            nodeId: change.nodeId,
            type: change.type,
            node: node.trashedAt === null ? node : null,
            tombstone: node.trashedAt === null ? null : { id: node.id, parentId: node.parentId, kind: node.kind, trashedAt: node.trashedAt },
          },
    );
    const last = page[page.length - 1];
    // A full page continues after its last item; a scan that stopped at its bound continues after
    // what it read; the end of the log continues after the last item (or where it began).
    if (scan.items.length > input.limit && last !== undefined) return { data, nextCursor: changeCursor(last.change.seq), hasMore: true };
    if (!scan.exhausted) return { data, nextCursor: changeCursor(scan.scannedThroughSeq), hasMore: true };
    return { data, nextCursor: changeCursor(last === undefined ? afterSeq : last.change.seq), hasMore: false };
  }).pipe(withSpan("files.listChanges"));
