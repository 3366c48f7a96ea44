/**
 * Test support of the file storage module: a runtime of the files core over one test database
 * built from the module's definition (`moduleLayer(db, [makeFilesModule(...)])`: the real SQL
 * repositories), the local blob store as the object store, the signature scanner, the sharp
 * thumbnailer, and an
 * in-memory workspace directory (the membership a host binds), plus helpers to upload bytes
 * through grants.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { makeSignatureScanner } from "../../adapters/scanner/SignatureScanner.js";
import { makeSharpThumbnailer } from "../../adapters/thumbnails/SharpThumbnailer.js";
import type { FilesServices } from "../../core/files/Services.js";
import { completeUpload } from "../../core/files/CompleteUpload.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { ensureDrive } from "../../core/files/Drives.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { scanVersion } from "../../core/files/ScanVersion.js";
import { makeFilesModule, type FilesModuleOptions } from "../../hosts/modules/filesModule.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Scanner } from "../../ports/Scanner.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import { defaultFilesSettings, type FilesSettings } from "../../ports/files/FilesSettings.js";
import type { WorkspaceDirectory, WorkspaceStanding } from "../../ports/files/WorkspaceDirectory.js";
import { forEachDialect, testModules, type TapTest } from "../support/databases.js";
import type { HasTeardown } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";

/** The tables a files test database gets: the reference modules' and this module's. */
export const filesTestModules = [...testModules, makeFilesModule()];

/** `forEachDialect` on a database with this module's tables. */
export const forEachFilesDialect = (t: TapTest, name: string, fn: (t: TapTest, db: SqlDatabase) => Promise<void>): Promise<unknown> =>
  forEachDialect(t, name, fn, filesTestModules);

/** A membership table a test edits (add, remove members) while the runtime reads it. */
export class TestDirectory {
  readonly members = new Map<string, WorkspaceStanding>();
  set(workspaceId: string, userId: string, standing: WorkspaceStanding | null): void {
    if (standing === null) this.members.delete(`${workspaceId}/${userId}`);
    else this.members.set(`${workspaceId}/${userId}`, standing);
  }
  readonly port: WorkspaceDirectory = {
    standing: (workspaceId, userId) => Effect.sync(() => this.members.get(`${workspaceId}/${userId}`) ?? null),
    membersAmong: (workspaceId, userIds) => Effect.sync(() => [...new Set(userIds)].filter((userId) => this.members.has(`${workspaceId}/${userId}`))),
  };
}

/** Small parts so multi-part uploads stay tiny in tests. */
export const testSettings: FilesSettings = { ...defaultFilesSettings, securityOperators: ["sec-op"], partSizeBytes: 16, defaultQuotaBytes: 10_000, maxFileBytes: 5_000 };

/** A runtime of the files core over `db`, disposed at teardown (`options`: the module's other options, e.g. the search index's bound). */
export const filesRuntime = (t: HasTeardown, db: SqlDatabase, settings: Partial<FilesSettings> = {}, options: Omit<FilesModuleOptions, "directory" | "settings"> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-files-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = makeLocalBlobStore({ dir, signingSecret: "files-test-signing-secret-0123456789abcdef" });
  const directory = new TestDirectory();
  // The module's own Layer (as hosts compose it), with the membership a test edits and its limits.
  const module = makeFilesModule({ ...options, directory: directory.port, settings: { ...testSettings, ...settings } });
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(moduleLayer(db, [module]), Layer.succeed(ObjectStore, store), Layer.succeed(Scanner, makeSignatureScanner()), Layer.succeed(Thumbnailer, makeSharpThumbnailer())),
  );
  t.teardown(() => runtime.dispose());
  const run = <A, E>(effect: Effect.Effect<A, E, FilesServices>): Promise<A> => runtime.runPromise(effect);
  /** Runs and answers the typed failure (or the value); a defect throws. */
  const attempt = async <A, E>(effect: Effect.Effect<A, E, FilesServices>): Promise<{ ok: true; value: A } | { ok: false; error: E }> => {
    const exit = await runtime.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
    const failure = Cause.failureOption(exit.cause);
    if (Option.isNone(failure)) throw new Error(`unexpected defect: ${Cause.pretty(exit.cause)}`);
    return { ok: false, error: failure.value };
  };
  return { runtime, run, attempt, store, directory, db };
};

/** The lowercase hex SHA-256 of `bytes`. */
export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** PUTs `bytes` to a part grant the way a client would, through the local store's grant check. */
export const putThroughGrant = async (store: LocalBlobStore, grant: { readonly url: string; readonly headers: Readonly<Record<string, string>> }, bytes: Uint8Array): Promise<void> => {
  const token = grant.url.slice(grant.url.lastIndexOf("/") + 1);
  const claims = store.verify(token, "PUT");
  if (!("k" in claims)) throw new Error(`grant refused: ${claims._tag}`);
  const stored = await store.receive(claims, Readable.from([Buffer.from(bytes)]), grant.headers["Content-Type"]);
  if (!("key" in stored)) throw new Error(`upload refused: ${stored._tag}`);
};

/** The SHA-256 of each `partSize` slice of `bytes`. */
export const partChecksums = (bytes: Uint8Array, partSize: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(bytes.length / partSize)); i++) out.push(sha256(bytes.subarray(i * partSize, (i + 1) * partSize)));
  return out;
};

/** The runtime of filesRuntime. */
export type FilesEnv = ReturnType<typeof filesRuntime>;

/** A workspace with a drive: `admin` is its admin, `members` plain members. Answers the root id. */
export const workspaceWithDrive = async (env: FilesEnv, workspaceId: string, admin: string, members: ReadonlyArray<string> = []): Promise<string> => {
  env.directory.set(workspaceId, admin, "admin");
  for (const m of members) env.directory.set(workspaceId, m, "member");
  const drive = await env.run(ensureDrive(workspaceId, admin));
  return drive.rootNodeId;
};

/**
 * `workspaceWithDrive` for a migration test: the drive and its root written as rows of files
 * migration 1, since a database migrated only part of the way lacks columns today's node rows
 * carry. Answers the root's id.
 */
export const workspaceWithDriveRows = async (env: FilesEnv, db: SqlDatabase, workspaceId: string, admin: string): Promise<string> => {
  env.directory.set(workspaceId, admin, "admin");
  const time = db.features.timeToDb(new Date());
  const rootId = randomUUID();
  await db.db
    .insertInto("fs_drives")
    .values({ workspace_id: workspaceId, root_node_id: rootId, quota_bytes: testSettings.defaultQuotaBytes, used_bytes: 0, reserved_bytes: 0, change_seq: 0, pruned_through_seq: 0, acl_epoch: 1, created_at: time, updated_at: time })
    .execute();
  await db.db
    .insertInto("fs_nodes")
    .values({ id: rootId, workspace_id: workspaceId, parent_id: null, name: "root", kind: "folder", version: 1, created_by: admin, created_at: time, updated_at: time })
    .execute();
  return rootId;
};

/** Opens an upload for `bytes`, PUTs every part through its grant, and answers the session. */
export const uploadParts = async (
  env: FilesEnv,
  input: { userId: string; workspaceId: string; parentId: string; name: string; bytes: Uint8Array; nodeId?: string; contentType?: string },
) => {
  const session = await env.run(
    createUpload({
      userId: input.userId,
      workspaceId: input.workspaceId,
      parentId: input.parentId,
      name: input.name,
      sizeBytes: input.bytes.length,
      sha256: sha256(input.bytes),
      contentType: input.contentType ?? "application/octet-stream",
      nodeId: input.nodeId ?? null,
      partSha256: partChecksums(input.bytes, testSettings.partSizeBytes),
    }),
  );
  for (const grant of session.parts) {
    const size = session.partSizeBytes;
    await putThroughGrant(env.store, grant, input.bytes.subarray((grant.partNumber - 1) * size, grant.partNumber * size));
  }
  return session;
};

/** Uploads and completes a file; answers the quarantined version. */
export const uploadFile = async (
  env: FilesEnv,
  input: { userId: string; workspaceId: string; parentId: string; name: string; bytes: Uint8Array; nodeId?: string; contentType?: string },
) => {
  const session = await uploadParts(env, input);
  return env.run(completeUpload({ userId: input.userId, workspaceId: input.workspaceId, uploadId: session.id, sha256: sha256(input.bytes) }));
};

/** Uploads, completes and scans a file (clean bytes end published). */
export const publishFile = async (
  env: FilesEnv,
  input: { userId: string; workspaceId: string; parentId: string; name: string; bytes: Uint8Array; nodeId?: string; contentType?: string },
) => {
  const version = await uploadFile(env, input);
  await env.run(scanVersion(input.workspaceId, version.id, { attempt: 1, maxAttempts: 3 }));
  return version;
};

/** The drive counters as stored. */
export const driveCounters = async (env: FilesEnv, workspaceId: string) => {
  const row = await env.db.db.selectFrom("fs_drives").select(["quota_bytes", "used_bytes", "reserved_bytes"]).where("workspace_id", "=", workspaceId).executeTakeFirstOrThrow();
  return { quota: Number(row.quota_bytes), used: Number(row.used_bytes), reserved: Number(row.reserved_bytes) };
};

/** UTF-8 bytes of `text`. */
export const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * Raw `fs_changes` rows of one node written straight to the table (for migration tests, which
 * write the log as an older schema had it): `row(seq, type, recipient?)`, by `actorId`, now.
 */
export const changeRows = (db: SqlDatabase, workspaceId: string, nodeId: string, actorId: string) => {
  const time = db.features.timeToDb(new Date());
  return (seq: number, type: string, recipient?: string | null) => ({
    workspace_id: workspaceId,
    seq,
    node_id: nodeId,
    type,
    version_id: null,
    actor_id: actorId,
    created_at: time,
    ...(recipient === undefined ? {} : { recipient_id: recipient }),
  });
};

/** Every change `userId` sees in workspace "ws1" after `cursor` (following pages), and the cursor to continue from. */
export const changeFeed = async (env: FilesEnv, userId: string, cursor: string | null) => {
  const items: Array<Record<string, unknown>> = [];
  let next = cursor;
  for (;;) {
    const page = await env.run(listChanges({ userId, workspaceId: "ws1", cursor: next, limit: 50 }));
    items.push(...(page.data as unknown as Array<Record<string, unknown>>));
    next = page.nextCursor;
    if (!page.hasMore) return { items, cursor: next };
  }
};
