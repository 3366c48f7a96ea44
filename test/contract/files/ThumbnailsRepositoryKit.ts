/**
 * Contract kit for ThumbnailsRepository (ports/files/ThumbnailsRepository.ts): one thumbnail per
 * version, stored as given and found under its workspace only; a second insert for the same
 * version (an earlier run made it) answers false and keeps the first.
 */
import { Effect } from "effect";
import type { FileVersionId, NodeId, WorkspaceId } from "../../../core/files/model/Ids.js";
import type { ThumbnailRecord } from "../../../core/files/model/Thumbnail.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { ThumbnailsRepository } from "../../../ports/files/ThumbnailsRepository.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import { versionRecord } from "./VersionsRepositoryKit.js";

/** The ports this kit needs: the repository, and the image file and versions it thumbnails. */
export type ThumbnailsRepositoryKitPorts = ThumbnailsRepository | VersionsRepository | NodesRepository | DriveSeedPorts;

const thumbnails = <A>(f: (r: ThumbnailsRepository) => Effect.Effect<A>) => Effect.flatMap(ThumbnailsRepository, f);

/** A ready thumbnail of version `versionId`, made at `at(ms)`. */
export const thumbnailRecord = (workspaceId: WorkspaceId, nodeId: NodeId, versionId: FileVersionId, ms: number): ThumbnailRecord => ({
  versionId,
  workspaceId,
  nodeId,
  status: "ready",
  objectKey: `kit/thumb/${versionId}`,
  contentType: "image/webp",
  width: 256,
  height: 128,
  detail: null,
  createdAt: at(ms),
});

/** Drive `n` with image file `n` and its versions `n` and `n + 1`. */
const seedImage = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(n);
    const file = yield* seedNode(nodeRecord(workspaceId, n, root.id, `image-${n}.png`, "file"));
    const first = versionRecord(workspaceId, file.id, n, 1);
    const second = versionRecord(workspaceId, file.id, n + 1, 2);
    yield* Effect.flatMap(VersionsRepository, (r) => Effect.zipRight(r.insert(first), r.insert(second)));
    return { workspaceId, file, first, second };
  });

/** The cases of the ThumbnailsRepository kit. */
export const thumbnailsRepositoryCases: ReadonlyArray<KitCase<ThumbnailsRepositoryKitPorts>> = [
  {
    name: "thumbnails: a thumbnail is stored as given, per version, and found under its workspace only",
    run: async (t, run) => {
      const { workspaceId, file, first, second } = await run(seedImage(1));
      const other = await run(seedImage(10));
      const ready = thumbnailRecord(workspaceId, file.id, first.id, 10);
      t.equal(await run(thumbnails((r) => r.insert(ready))), true);
      t.same(await run(thumbnails((r) => r.find(workspaceId, first.id))), ready, "stored as given");
      t.equal(await run(thumbnails((r) => r.find(workspaceId, second.id))), null, "the file's other version has none");
      t.equal(await run(thumbnails((r) => r.find(other.workspaceId, first.id))), null, "absent under another workspace");
      const rejected: ThumbnailRecord = { ...thumbnailRecord(workspaceId, file.id, second.id, 20), status: "rejected", objectKey: null, contentType: null, width: null, height: null, detail: "too many pixels" };
      t.equal(await run(thumbnails((r) => r.insert(rejected))), true, "an outcome without an object is recorded too");
      t.same(await run(thumbnails((r) => r.find(workspaceId, second.id))), rejected);
    },
  },
  {
    name: "thumbnails: a version has one thumbnail: a second insert answers false and the first stays",
    run: async (t, run) => {
      const { workspaceId, file, first } = await run(seedImage(1));
      const ready = thumbnailRecord(workspaceId, file.id, first.id, 10);
      t.equal(await run(thumbnails((r) => r.insert(ready))), true);
      const again: ThumbnailRecord = { ...thumbnailRecord(workspaceId, file.id, first.id, 20), status: "unsupported", objectKey: null, contentType: null, width: null, height: null, detail: "again" };
      t.equal(await run(thumbnails((r) => r.insert(again))), false, "an earlier run made it");
      t.same(await run(thumbnails((r) => r.find(workspaceId, first.id))), ready, "the first stays");
    },
  },
];

/** Runs the ThumbnailsRepository kit. */
export const thumbnailsRepositorySuite = (options: SuiteOptions<ThumbnailsRepositoryKitPorts>): Promise<unknown> => runCases(options, thumbnailsRepositoryCases);
