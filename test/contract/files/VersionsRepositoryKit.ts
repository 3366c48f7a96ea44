/**
 * Contract kit for VersionsRepository (ports/files/VersionsRepository.ts): a version is found
 * only under its workspace; numbers count 1, 2, 3, ... per file; a status moves only from one of
 * the expected statuses (a move from any other writes nothing); publishing with `makeCurrent`
 * leaves exactly one current published version per file, and never replaces a newer current one; a file's versions list newest first in
 * pages after a number; versions by status list across workspaces in id order after an id.
 */
import { Effect } from "effect";
import { FileVersionId, type NodeId, type WorkspaceId } from "../../../core/files/model/Ids.js";
import type { FileVersion, VersionStatus } from "../../../core/files/model/FileVersion.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";

/** The ports this kit needs: the repository, and the drive and file node its versions belong to. */
export type VersionsRepositoryKitPorts = VersionsRepository | NodesRepository | DriveSeedPorts;

const versions = <A>(f: (r: VersionsRepository) => Effect.Effect<A>) => Effect.flatMap(VersionsRepository, f);

/** Version id `n` (kind digit 4). */
export const versionKitId = (n: number): FileVersionId => FileVersionId.make(driveKitId(4, n));

/** A quarantined version `n` (number `number`) of file `nodeId`. */
export const versionRecord = (workspaceId: WorkspaceId, nodeId: NodeId, n: number, number: number): FileVersion => ({
  id: versionKitId(n),
  workspaceId,
  nodeId,
  number,
  sizeBytes: 100 + n,
  sha256: String(n).padStart(64, "0"),
  contentType: "text/plain",
  detectedContentType: null,
  objectKey: `kit/${workspaceId}/${n}`,
  status: "quarantined",
  isCurrent: false,
  uploadSessionId: null,
  restoredFromId: null,
  scanDetail: null,
  createdBy: "kit-user",
  createdAt: at(n),
  publishedAt: null,
});

/** Drive `n` with file node `n` in its root. */
const seedFile = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(n);
    const file = yield* seedNode(nodeRecord(workspaceId, n, root.id, `file-${n}.txt`, "file"));
    return { workspaceId, file };
  });

const transition = (workspaceId: string, id: string, from: ReadonlyArray<VersionStatus>, to: VersionStatus, makeCurrent: boolean, ms = 50) =>
  versions((r) => r.transition({ workspaceId, id, from, to, makeCurrent, scanDetail: null, at: at(ms) }));

/** The cases of the VersionsRepository kit. */
export const versionsRepositoryCases: ReadonlyArray<KitCase<VersionsRepositoryKitPorts>> = [
  {
    name: "versions: a version is found under its workspace only; numbers count 1, 2, 3, ... per file",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      const other = await run(seedFile(2));
      t.equal(await run(versions((r) => r.nextNumber(workspaceId, file.id))), 1, "the first version is number 1");
      const v1 = versionRecord(workspaceId, file.id, 1, 1);
      await run(versions((r) => r.insert(v1)));
      t.same(await run(versions((r) => r.find(workspaceId, v1.id))), v1, "stored as given");
      t.equal(await run(versions((r) => r.find(other.workspaceId, v1.id))), null, "absent under another workspace");
      t.equal(await run(versions((r) => r.workspaceOf(v1.id))), workspaceId);
      t.equal(await run(versions((r) => r.workspaceOf(versionKitId(99)))), null);
      t.equal(await run(versions((r) => r.nextNumber(workspaceId, file.id))), 2);
      t.equal(await run(versions((r) => r.nextNumber(other.workspaceId, other.file.id))), 1, "numbers are per file");
    },
  },
  {
    name: "versions: a status moves only from an expected status; a move from any other writes nothing",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      const v1 = versionRecord(workspaceId, file.id, 1, 1);
      await run(versions((r) => r.insert(v1)));
      t.equal(await run(transition(workspaceId, v1.id, ["quarantined"], "blocked", false)), "moved");
      const blocked = await run(versions((r) => r.find(workspaceId, v1.id)));
      t.equal(blocked?.status, "blocked");
      t.equal(await run(transition(workspaceId, v1.id, ["quarantined"], "published", true)), "unmoved", "no longer quarantined: someone else moved it");
      t.same(await run(versions((r) => r.find(workspaceId, v1.id))), blocked, "the refused move wrote nothing");
      t.equal(await run(transition(workspaceId, v1.id, ["quarantined"], "published", true)), "unmoved", "a retry is refused the same way");
      const other = await run(seedFile(2));
      t.equal(await run(transition(other.workspaceId, v1.id, ["blocked"], "published", true)), "unmoved", "never through another workspace");
      t.equal((await run(versions((r) => r.find(workspaceId, v1.id))))?.status, "blocked");
    },
  },
  {
    name: "versions: publishing with makeCurrent leaves exactly one current published version per file",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      for (const n of [1, 2, 3]) await run(versions((r) => r.insert(versionRecord(workspaceId, file.id, n, n))));
      const current = async () => (await run(versions((r) => r.list(workspaceId, file.id, null, 10)))).filter((v) => v.isCurrent).map((v) => v.id);
      t.same(await current(), [], "none before the first publication");
      t.equal(await run(transition(workspaceId, versionKitId(1), ["quarantined"], "published", true, 10)), "made_current");
      const published = await run(versions((r) => r.find(workspaceId, versionKitId(1))));
      t.same([published?.status, published?.isCurrent, published?.publishedAt], ["published", true, at(10)]);
      t.equal(await run(transition(workspaceId, versionKitId(2), ["quarantined"], "published", true, 20)), "made_current");
      t.same(await current(), [versionKitId(2)], "the new clean version is the one current");
      t.equal((await run(versions((r) => r.find(workspaceId, versionKitId(1)))))?.status, "published", "the old one stays published, not current");
      t.equal(await run(transition(workspaceId, versionKitId(3), ["quarantined"], "scan_failed", false, 30)), "moved");
      t.same(await current(), [versionKitId(2)], "a failed scan changes nothing current");
    },
  },
  {
    // Spec: "A file has many immutable versions and exactly one current published version".
    name: "versions: an older version published late never replaces a newer current one",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      for (const n of [1, 2]) await run(versions((r) => r.insert(versionRecord(workspaceId, file.id, n, n))));
      const current = async () => (await run(versions((r) => r.list(workspaceId, file.id, null, 10)))).filter((v) => v.isCurrent).map((v) => v.id);
      t.equal(await run(transition(workspaceId, versionKitId(2), ["quarantined"], "published", true, 10)), "made_current");
      t.equal(await run(transition(workspaceId, versionKitId(1), ["quarantined"], "published", true, 20)), "moved", "published, not current");
      t.same(await current(), [versionKitId(2)], "the newer version stays current");
      t.equal((await run(versions((r) => r.find(workspaceId, versionKitId(1)))))?.status, "published");
    },
  },
  {
    // Spec (Resources): "A file node has one current published version".
    name: "versions: after the current version is blocked, the latest published one becomes current (or none)",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      for (const n of [1, 2, 3]) await run(versions((r) => r.insert(versionRecord(workspaceId, file.id, n, n))));
      await run(transition(workspaceId, versionKitId(1), ["quarantined"], "published", true, 10));
      await run(transition(workspaceId, versionKitId(2), ["quarantined"], "published", true, 20));
      t.equal(await run(transition(workspaceId, versionKitId(2), ["published"], "blocked", false, 30)), "moved");
      t.equal((await run(versions((r) => r.makeLatestPublishedCurrent(workspaceId, file.id))))?.id, versionKitId(1), "v1 (v3 is not published)");
      t.equal((await run(versions((r) => r.makeLatestPublishedCurrent(workspaceId, file.id))))?.id, versionKitId(1), "asked again: the same");
      await run(transition(workspaceId, versionKitId(1), ["published"], "blocked", false, 40));
      t.equal(await run(versions((r) => r.makeLatestPublishedCurrent(workspaceId, file.id))), null, "none published: none current");
    },
  },
  {
    name: "versions: a file's versions list newest first, in pages after a number",
    run: async (t, run) => {
      const { workspaceId, file } = await run(seedFile(1));
      const other = await run(seedFile(2));
      for (const n of [1, 2, 3, 4, 5]) await run(versions((r) => r.insert(versionRecord(workspaceId, file.id, n, n))));
      await run(versions((r) => r.insert(versionRecord(other.workspaceId, other.file.id, 6, 1))));
      const page = (after: number | null) => run(versions((r) => r.list(workspaceId, file.id, after, 2))).then((l) => l.map((v) => v.number));
      t.same(await page(null), [5, 4]);
      t.same(await page(4), [3, 2]);
      t.same(await page(2), [1]);
      t.same(await page(1), []);
      t.same(await run(versions((r) => r.list(other.workspaceId, file.id, null, 10))), [], "not through another workspace");
    },
  },
  {
    name: "versions: versions by status list across workspaces in id order, in pages after an id",
    run: async (t, run) => {
      const a = await run(seedFile(1));
      const b = await run(seedFile(2));
      await run(versions((r) => r.insert(versionRecord(b.workspaceId, b.file.id, 3, 1))));
      await run(versions((r) => r.insert(versionRecord(a.workspaceId, a.file.id, 1, 1))));
      await run(versions((r) => r.insert(versionRecord(a.workspaceId, a.file.id, 2, 2))));
      await run(versions((r) => r.insert(versionRecord(b.workspaceId, b.file.id, 4, 2))));
      await run(transition(a.workspaceId, versionKitId(2), ["quarantined"], "published", true));
      await run(transition(b.workspaceId, versionKitId(4), ["quarantined"], "blocked", false));
      const page = (after: string | null) =>
        run(versions((r) => r.listByStatus(["quarantined", "blocked", "scan_failed"], after, 2))).then((l) => l.map((v) => v.id));
      t.same(await page(null), [versionKitId(1), versionKitId(3)]);
      t.same(await page(versionKitId(3)), [versionKitId(4)], "the published version is not under review");
      t.same(await page(versionKitId(4)), []);
    },
  },
];

/** Runs the VersionsRepository kit. */
export const versionsRepositorySuite = (options: SuiteOptions<VersionsRepositoryKitPorts>): Promise<unknown> => runCases(options, versionsRepositoryCases);
