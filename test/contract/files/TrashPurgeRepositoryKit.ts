/**
 * Contract kit for TrashPurgeRepository (ports/files/TrashPurgeRepository.ts): the purge selects
 * trash roots trashed before the cutoff across workspaces, oldest first, keyset-paged by
 * `(trashedAt, id)`, and never a node trashed with (not as) a root or an active one; its survey
 * counts the subtree and reports what stands in the way (a legal hold, an active node, an open
 * upload session); reducing to stubs deletes what hangs on the subtree and marks its nodes purged,
 * so a purge happens once (the root is no longer due, a second reduction touches nothing), and the
 * stubs are deleted once no change row names them.
 */
import { Effect } from "effect";
import type { NodeId, WorkspaceId } from "../../../core/files/model/Ids.js";
import type { Node } from "../../../core/files/model/Node.js";
import { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { ShareLinksRepository } from "../../../ports/files/ShareLinksRepository.js";
import { TrashPurgeRepository } from "../../../ports/files/TrashPurgeRepository.js";
import { ThumbnailsRepository } from "../../../ports/files/ThumbnailsRepository.js";
import { UploadsRepository } from "../../../ports/files/UploadsRepository.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { inTransaction, nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import { shareLinkFields } from "./ShareLinksRepositoryKit.js";
import { thumbnailRecord } from "./ThumbnailsRepositoryKit.js";
import { uploadRecord } from "./UploadsRepositoryKit.js";
import { versionRecord } from "./VersionsRepositoryKit.js";

/** The ports this kit needs: the repository, and the nodes, uploads and links a subtree carries. */
export type TrashPurgeRepositoryKitPorts =
  | TrashPurgeRepository
  | NodesRepository
  | UploadsRepository
  | ShareLinksRepository
  | VersionsRepository
  | ThumbnailsRepository
  | DriveSeedPorts;

const purge = <A>(f: (r: TrashPurgeRepository) => Effect.Effect<A>) => Effect.flatMap(TrashPurgeRepository, f);
const nodes = <A>(f: (r: NodesRepository) => Effect.Effect<A>) => Effect.flatMap(NodesRepository, f);

/** Drive `d` with folder `n` in its root and file `n + 1` in that folder. */
const seedTree = (d: number, n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(d);
    const folder = yield* seedNode(nodeRecord(workspaceId, n, root.id, `Folder ${n}`));
    const file = yield* seedNode(nodeRecord(workspaceId, n + 1, folder.id, `file-${n}.txt`, "file"));
    return { workspaceId, root, folder, file };
  });

const trash = (workspaceId: WorkspaceId, id: NodeId, ms: number) => nodes((r) => r.trashSubtree(workspaceId, id, at(ms)));

/** The due roots' node ids (one page of `limit` after `after`). */
const dueIds = (before: number, after: readonly [Date, string] | null = null, limit = 100) =>
  Effect.map(
    purge((r) => r.dueRoots(at(before), after, limit)),
    (roots) => roots.map((root) => root.nodeId),
  );

/** Stores `node` with its legal hold set. */
const hold = (node: Node) =>
  Effect.flatMap(
    nodes((r) => r.find(node.workspaceId, node.id)),
    (stored) => (stored === null ? Effect.dieMessage("no node to hold") : nodes((r) => r.update({ ...stored, legalHold: true, version: stored.version + 1 }, stored.version))),
  );

/** The cases of the TrashPurgeRepository kit. */
export const trashPurgeRepositoryCases: ReadonlyArray<KitCase<TrashPurgeRepositoryKitPorts>> = [
  {
    name: "trash purge: due roots are the trash roots trashed before the cutoff across workspaces, oldest first, never their trashed children or active nodes",
    run: async (t, run) => {
      const one = await run(seedTree(1, 10));
      const two = await run(seedTree(2, 20));
      const three = await run(seedTree(3, 30));
      await run(trash(two.workspaceId, two.folder.id, 100));
      await run(trash(one.workspaceId, one.folder.id, 200));
      await run(trash(three.workspaceId, three.folder.id, 400));
      const roots = await run(purge((r) => r.dueRoots(at(300), null, 100)));
      t.same(
        roots.map((root) => ({ ...root })),
        [
          { workspaceId: two.workspaceId, nodeId: two.folder.id, trashedAt: at(100) },
          { workspaceId: one.workspaceId, nodeId: one.folder.id, trashedAt: at(200) },
        ],
        "old enough roots of every workspace, oldest first; the trashed files under them are no roots",
      );
      t.same(await run(dueIds(200)), [two.folder.id], "trashed exactly at the cutoff is not yet due");
      t.same(await run(dueIds(100)), [], "nothing before the first trashing");
      t.notOk((await run(dueIds(10_000))).some((id) => id === one.root.id || id === one.file.id), "active roots and children never");
    },
  },
  {
    name: "trash purge: due roots page by the (trashedAt, id) key without skipping or repeating a root trashed at the same instant",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      for (const n of [14, 12, 13, 11]) {
        await run(seedNode(nodeRecord(workspaceId, n, root.id, `Folder ${n}`)));
        await run(trash(workspaceId, nodeRecord(workspaceId, n, root.id, "").id, n === 14 ? 50 : 100));
      }
      const all = await run(dueIds(1_000));
      const first = await run(purge((r) => r.dueRoots(at(1_000), null, 2)));
      const last = first[first.length - 1];
      t.equal(first.length, 2, "a page holds at most limit roots");
      const rest = last === undefined ? [] : await run(dueIds(1_000, [last.trashedAt, last.nodeId], 10));
      t.same([...first.map((r) => r.nodeId), ...rest], all, "the pages together are the whole list, in order");
      t.equal(all[0], nodeRecord(workspaceId, 14, root.id, "").id, "the oldest trashing first");
      t.same(all.slice(1), [...all.slice(1)].sort(), "same instant: by id");
      t.equal(all.length, 4);
    },
  },
  {
    name: "trash purge: the survey counts the subtree and reports a legal hold, an active node and an open upload in it; a clean subtree reports none",
    run: async (t, run) => {
      const clean = await run(seedTree(1, 10));
      await run(trash(clean.workspaceId, clean.folder.id, 100));
      const survey = await run(purge((r) => r.survey(clean.workspaceId, clean.folder.id)));
      t.same(
        { nodeCount: survey.nodeCount, held: survey.held, active: survey.active, openUploads: survey.openUploads, versionCount: survey.versionCount },
        { nodeCount: 2, held: false, active: false, openUploads: false, versionCount: 0 },
        "a clean subtree of a folder and its file",
      );
      t.same(survey.releasedObjects, [], "no versions, no objects to free");

      const held = await run(seedTree(2, 20));
      t.equal(await run(hold(held.file)), "written");
      await run(trash(held.workspaceId, held.folder.id, 100));
      t.equal((await run(purge((r) => r.survey(held.workspaceId, held.folder.id)))).held, true, "a held node anywhere under the root holds the purge");

      const restored = await run(seedTree(3, 30));
      await run(trash(restored.workspaceId, restored.file.id, 50));
      await run(trash(restored.workspaceId, restored.folder.id, 100));
      await run(nodes((r) => r.restoreSubtree(restored.workspaceId, restored.file.id, at(150))));
      t.equal((await run(purge((r) => r.survey(restored.workspaceId, restored.folder.id)))).active, true, "a node restored into the trashed folder is active");

      const uploading = await run(seedTree(4, 40));
      const { session, parts } = uploadRecord(uploading.workspaceId, uploading.folder.id, 40);
      await run(Effect.flatMap(UploadsRepository, (r) => r.insert(session, parts)));
      await run(trash(uploading.workspaceId, uploading.folder.id, 100));
      t.equal((await run(purge((r) => r.survey(uploading.workspaceId, uploading.folder.id)))).openUploads, true, "an open upload into the subtree");
      await run(Effect.flatMap(UploadsRepository, (r) => r.settle({ workspaceId: uploading.workspaceId, id: session.id, to: "aborted", versionId: null, at: at(120) })));
      t.equal((await run(purge((r) => r.survey(uploading.workspaceId, uploading.folder.id)))).openUploads, false, "a settled session no longer stands in the way");
      t.equal((await run(purge((r) => r.survey(clean.workspaceId, held.folder.id)))).nodeCount, 0, "another workspace's subtree is not surveyed");
    },
  },
  {
    name: "trash purge: the survey counts the subtree's versions, frees only objects no version outside it references (each once), and lists its thumbnails",
    run: async (t, run) => {
      const tree = await run(seedTree(1, 10));
      const outside = await run(seedNode(nodeRecord(tree.workspaceId, 30, tree.root.id, "outside.txt", "file")));
      const own = versionRecord(tree.workspaceId, tree.file.id, 1, 1);
      const sharedKey = versionRecord(tree.workspaceId, tree.file.id, 2, 2);
      const sameObjectAgain = { ...versionRecord(tree.workspaceId, tree.file.id, 3, 3), objectKey: own.objectKey, sizeBytes: own.sizeBytes };
      const outsideCopy = { ...versionRecord(tree.workspaceId, outside.id, 4, 1), objectKey: sharedKey.objectKey, sizeBytes: sharedKey.sizeBytes };
      for (const version of [own, sharedKey, sameObjectAgain, outsideCopy]) await run(Effect.flatMap(VersionsRepository, (r) => r.insert(version)));
      const thumbnail = thumbnailRecord(tree.workspaceId, tree.file.id, own.id, 20);
      await run(Effect.flatMap(ThumbnailsRepository, (r) => r.insert(thumbnail)));
      await run(trash(tree.workspaceId, tree.folder.id, 100));
      const survey = await run(purge((r) => r.survey(tree.workspaceId, tree.folder.id)));
      t.equal(survey.versionCount, 3, "the versions of the subtree's files");
      t.same(survey.releasedObjects, [{ key: own.objectKey, sizeBytes: own.sizeBytes }], "its own object once; the one a file outside still uses stays");
      t.same(survey.thumbnailKeys, [thumbnail.objectKey], "the thumbnails of its versions");
    },
  },
  {
    name: "trash purge: reducing to stubs deletes what hangs on the subtree, once; the root is no longer due, its stubs go when no change names them, other nodes stay",
    run: async (t, run) => {
      const tree = await run(seedTree(1, 10));
      const other = await run(seedTree(2, 20));
      const sibling = await run(seedNode(nodeRecord(tree.workspaceId, 30, tree.root.id, "Kept")));
      const link = await run(Effect.flatMap(ShareLinksRepository, (r) => r.create(shareLinkFields(tree.workspaceId, tree.file.id, 1))));
      await run(trash(tree.workspaceId, tree.folder.id, 100));
      await run(trash(other.workspaceId, other.folder.id, 100));
      await run(inTransaction(purge((r) => r.reduceToStubs(tree.workspaceId, tree.folder.id, at(200)))));
      t.equal(await run(nodes((r) => r.find(tree.workspaceId, tree.folder.id))), null, "the root is no node any more");
      t.equal(await run(nodes((r) => r.find(tree.workspaceId, tree.file.id))), null, "nor the node under it");
      t.equal(await run(Effect.flatMap(ShareLinksRepository, (r) => r.findByToken(link.token))), null, "its share link is gone");
      t.equal((await run(purge((r) => r.survey(tree.workspaceId, tree.folder.id)))).nodeCount, 2, "the stubs stay for the change feed");
      t.same(await run(dueIds(1_000)), [other.folder.id], "the purged root is no longer due");
      await run(inTransaction(purge((r) => r.reduceToStubs(tree.workspaceId, tree.folder.id, at(300)))));
      t.same(await run(dueIds(1_000)), [other.folder.id], "a second reduction changes nothing");
      t.equal(await run(inTransaction(purge((r) => r.removeStubsOutOfWindow(tree.workspaceId, 100)))), 2, "with no change naming them, the stubs are deleted");
      t.equal((await run(purge((r) => r.survey(tree.workspaceId, tree.folder.id)))).nodeCount, 0, "nothing left to survey");
      t.equal(await run(inTransaction(purge((r) => r.removeStubsOutOfWindow(tree.workspaceId, 100)))), 0, "a second removal finds nothing");
      t.not(await run(nodes((r) => r.find(tree.workspaceId, sibling.id))), null, "the root's sibling stays");
      t.not(await run(nodes((r) => r.find(tree.workspaceId, tree.root.id))), null, "and the drive's root folder");
      t.equal((await run(purge((r) => r.survey(other.workspaceId, other.folder.id)))).nodeCount, 2, "another workspace's trash stays");
    },
  },
];

/** Runs the TrashPurgeRepository kit. */
export const trashPurgeRepositorySuite = (options: SuiteOptions<TrashPurgeRepositoryKitPorts>): Promise<unknown> => runCases(options, trashPurgeRepositoryCases);
