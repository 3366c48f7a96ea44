/**
 * Contract kit for ExtractionsRepository (ports/files/ExtractionsRepository.ts): an extraction is
 * found under its workspace only and stored as given; its status moves only by a conditional
 * update (`queued → running → succeeded | failed`), so of two writers expecting the same status
 * one wins and the other is told so and writes nothing.
 */
import { Effect } from "effect";
import { ExtractionId, type Extraction } from "../../../core/files/model/Extraction.js";
import { ExtractionsRepository } from "../../../ports/files/ExtractionsRepository.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import { versionRecord } from "./VersionsRepositoryKit.js";

/** The ports this kit needs: the repository, and the archive file and version an extraction reads. */
export type ExtractionsRepositoryKitPorts = ExtractionsRepository | VersionsRepository | NodesRepository | DriveSeedPorts;

const extractions = <A>(f: (r: ExtractionsRepository) => Effect.Effect<A>) => Effect.flatMap(ExtractionsRepository, f);

/** Extraction id `n` (kind digit 7). */
export const extractionKitId = (n: number): ExtractionId => ExtractionId.make(driveKitId(7, n));

/** Drive `n` with archive file `n` (its version `n`) in its root, and an extraction `n` of it queued into the root. */
const seedExtraction = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(n);
    const archive = yield* seedNode(nodeRecord(workspaceId, n, root.id, `archive-${n}.zip`, "file"));
    const version = versionRecord(workspaceId, archive.id, n, 1);
    yield* Effect.flatMap(VersionsRepository, (r) => r.insert(version));
    const extraction: Extraction = {
      id: extractionKitId(n),
      workspaceId,
      archiveNodeId: archive.id,
      archiveVersionId: version.id,
      parentId: root.id,
      status: "queued",
      reservedBytes: 0,
      failureCode: null,
      failureDetail: null,
      fileCount: 0,
      folderCount: 0,
      extractedBytes: 0,
      createdBy: "kit-user",
      createdAt: at(n),
      updatedAt: at(n),
      finishedAt: null,
    };
    yield* extractions((r) => r.insert(extraction));
    return { workspaceId, extraction };
  });

/** The cases of the ExtractionsRepository kit. */
export const extractionsRepositoryCases: ReadonlyArray<KitCase<ExtractionsRepositoryKitPorts>> = [
  {
    name: "extractions: an extraction is stored as given and found under its workspace only",
    run: async (t, run) => {
      const { workspaceId, extraction } = await run(seedExtraction(1));
      const other = await run(seedExtraction(2));
      t.same(await run(extractions((r) => r.find(workspaceId, extraction.id))), extraction, "stored as given");
      t.equal(await run(extractions((r) => r.find(other.workspaceId, extraction.id))), null, "absent under another workspace");
      t.equal(await run(extractions((r) => r.workspaceOf(extraction.id))), workspaceId);
      t.equal(await run(extractions((r) => r.workspaceOf(extractionKitId(99)))), null, "an unknown id has no workspace");
    },
  },
  {
    name: "extractions: the status moves only from the expected one: queued → running → succeeded, and a writer expecting a past status writes nothing",
    run: async (t, run) => {
      const { workspaceId, extraction } = await run(seedExtraction(1));
      const running: Extraction = { ...extraction, status: "running", reservedBytes: 500, updatedAt: at(10) };
      t.equal(await run(extractions((r) => r.update(running, "running"))), false, "not while it is still queued");
      t.equal(await run(extractions((r) => r.update(running, "queued"))), true, "queued → running");
      t.same(await run(extractions((r) => r.find(workspaceId, extraction.id))), running, "stored with its reservation");
      const failed: Extraction = { ...running, status: "failed", reservedBytes: 0, failureCode: "unsafe_path", failureDetail: "../x", updatedAt: at(20), finishedAt: at(20) };
      const succeeded: Extraction = { ...running, status: "succeeded", reservedBytes: 0, fileCount: 3, folderCount: 1, extractedBytes: 500, updatedAt: at(20), finishedAt: at(20) };
      t.equal(await run(extractions((r) => r.update(succeeded, "running"))), true, "running → succeeded");
      t.equal(await run(extractions((r) => r.update(failed, "running"))), false, "a second finisher is refused");
      t.equal(await run(extractions((r) => r.update({ ...running, updatedAt: at(30) }, "queued"))), false, "nor can it be started again");
      t.same(await run(extractions((r) => r.find(workspaceId, extraction.id))), succeeded, "the first finish stands");
    },
  },
  {
    name: "extractions: an update through another workspace is refused and changes nothing",
    run: async (t, run) => {
      const { workspaceId, extraction } = await run(seedExtraction(1));
      const other = await run(seedExtraction(2));
      const moved: Extraction = { ...extraction, workspaceId: other.workspaceId, status: "running", updatedAt: at(10) };
      t.equal(await run(extractions((r) => r.update(moved, "queued"))), false);
      t.same(await run(extractions((r) => r.find(workspaceId, extraction.id))), extraction, "unchanged");
      t.same(await run(extractions((r) => r.find(other.workspaceId, other.extraction.id))), other.extraction, "the other workspace's own extraction too");
    },
  },
];

/** Runs the ExtractionsRepository kit. */
export const extractionsRepositorySuite = (options: SuiteOptions<ExtractionsRepositoryKitPorts>): Promise<unknown> => runCases(options, extractionsRepositoryCases);
