/**
 * Spec, States: an upload session is completed (its version quarantined, then published) or
 * removed with its unclaimed objects; "A file has many immutable versions"; nothing is lost on
 * failure or race. An abort, an expiry or a failed verification that read the session while it
 * was open, and lost the settlement to a complete that committed meanwhile, removes nothing: the
 * objects it would remove are now the completed version's (the single part, or the parts
 * assembled under the session's key). And the abort that lost answers 409 upload_not_open, never
 * 204 — SQLite and Postgres.
 */
import { Effect, Layer } from "effect";
import t from "tap";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { completeUpload } from "../../core/files/CompleteUpload.js";
import { settleWithoutVersion } from "../../core/files/SettleUpload.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { bytesOf, driveCounters, filesRuntime, forEachFilesDialect, sha256, testSettings, uploadParts, workspaceWithDrive } from "./support.js";

t.test("a settlement that lost to a completion removes none of the completed version's objects, and the losing abort is 409 upload_not_open", (t) =>
  forEachFilesDialect(t, "settle loses to complete", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const cases = [
      { name: "one-part.txt", bytes: bytesOf("short"), trigger: "abort" as const },
      { name: "parts.txt", bytes: bytesOf("x".repeat(testSettings.partSizeBytes * 2 + 3)), trigger: "abort" as const },
      { name: "expired.txt", bytes: bytesOf("y".repeat(testSettings.partSizeBytes + 1)), trigger: "expire" as const },
      { name: "failed.txt", bytes: bytesOf("z".repeat(testSettings.partSizeBytes + 2)), trigger: "fail_verification" as const },
    ];
    for (const c of cases) {
      const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: c.name, bytes: c.bytes });
      const stale = await env.run(Effect.flatMap(UploadsRepository, (r) => r.find("ws1", session.id)));
      const version = await env.run(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(c.bytes) }));
      const before = await driveCounters(env, "ws1");
      // The loser read the session while it was open; the complete committed first.
      t.equal(await env.run(settleWithoutVersion(stale!, c.trigger)), null, `${c.name}: the ${c.trigger} settles nothing`);
      t.not(await env.run(env.store.stat(version.objectKey)), null, `${c.name}: the version's object is still stored`);
      t.same(await driveCounters(env, "ws1"), before, `${c.name}: the counters are untouched`);
    }

    // abortUpload itself, losing to a complete between its read and its settlement.
    const bytes = bytesOf("aborted too late");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "late.txt", bytes });
    let completed: { readonly objectKey: string } | null = null;
    // The abort's read answers the session still open, and the complete commits right after it.
    const completeAfterFirstRead = Layer.effect(
      UploadsRepository,
      Effect.map(UploadsRepository, (repo) => ({
        ...repo,
        find: (workspaceId: string, id: string) =>
          Effect.flatMap(repo.find(workspaceId, id), (found) =>
            completed !== null
              ? Effect.succeed(found)
              : Effect.as(
                  Effect.promise(async () => {
                    completed = await env.run(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
                  }),
                  found,
                ),
          ),
      })),
    );
    const aborted = await env.attempt(Effect.provide(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }), completeAfterFirstRead));
    t.match(aborted, { ok: false, error: { _tag: "UploadNotOpen", status: "completed" } }, "the abort that lost is refused: the upload completed");
    t.not(completed, null);
    t.not(await env.run(env.store.stat(completed!.objectKey)), null, "and the completed version's object is kept");
  }),
);
