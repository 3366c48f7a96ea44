/**
 * The tree's depth bound (FilesSettings.maxDepth): an access check walks at most that many
 * ancestors (spec, Authentication 2: "ACL checks include ancestors"), so no node may be deeper
 * below the root, or its check would miss the grants above the walk. Checked where the tree grows:
 * a new folder or file, a move (with the moved subtree's height), an extraction (its deepest path).
 */
import { Effect } from "effect";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { TreeTooDeep } from "./Errors.js";

/** How many levels may still be added below `parentId` (0: none); reads its ancestors. */
export const levelsBelow = (workspaceId: string, parentId: string): Effect.Effect<number, never, NodesRepository | FilesSettings> =>
  Effect.gen(function* () {
    const maxDepth = (yield* FilesSettings).maxDepth;
    // At most maxDepth ancestors are read: a parent that has that many has no room below it.
    const depth = (yield* (yield* NodesRepository).ancestors(workspaceId, parentId, maxDepth)).length;
    return Math.max(0, maxDepth - depth);
  });

/**
 * Fails with TreeTooDeep unless a node with `height` levels below it fits under a parent that has
 * `parentAncestors` ancestors (as an access check reads them: nearest first, at most maxDepth).
 */
export const requireRoomUnder = (parentAncestors: number, height: number): Effect.Effect<void, TreeTooDeep, FilesSettings> =>
  Effect.gen(function* () {
    const maxDepth = (yield* FilesSettings).maxDepth;
    if (height + 1 <= Math.max(0, maxDepth - parentAncestors)) return;
    return yield* Effect.fail(new TreeTooDeep({ maxDepth, detail: `nodes may be at most ${maxDepth} levels below the root` }));
  });

/** Fails with TreeTooDeep unless a node with `height` levels below it fits under `parentId`; reads its ancestors. */
export const requireRoomBelow = (workspaceId: string, parentId: string, height: number): Effect.Effect<void, TreeTooDeep, NodesRepository | FilesSettings> =>
  Effect.gen(function* () {
    const maxDepth = (yield* FilesSettings).maxDepth;
    const ancestors = yield* (yield* NodesRepository).ancestors(workspaceId, parentId, maxDepth);
    return yield* requireRoomUnder(ancestors.length, height);
  });
