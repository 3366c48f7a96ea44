/**
 * Nothing is lost on failure (spec, Limits: archive extraction; "A file has many immutable
 * versions"): an extraction attempt that started while the extraction was running, and fails
 * after another attempt committed it (a job retried while the first attempt was still working),
 * removes nothing — the objects it would remove are the committed files' versions — and answers
 * the extraction as it is (succeeded) — SQLite and Postgres.
 */
import { Effect, Layer } from "effect";
import t from "tap";
import { runExtraction } from "../../core/files/ExtractArchive.js";
import { requestExtraction } from "../../core/files/RequestExtraction.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { filesRuntime, forEachFilesDialect, publishFile, workspaceWithDrive } from "./support.js";
import { makeZip } from "./zip.js";

t.test("an extraction attempt that fails after another attempt committed the extraction removes none of its files' objects", (t) =>
  forEachFilesDialect(t, "extraction retry keeps objects", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.zip", bytes: makeZip([{ name: "one.txt", data: "first entry", method: 0 }]) });
    const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archive.nodeId, parentId: null }));
    t.equal(await env.run(runExtraction("ws1", requested.id)), "succeeded", "the first attempt commits");
    const key = `files/ws1/extractions/${requested.id}/entry-0`;
    t.not(await env.run(env.store.stat(key)), null, "its file's object is stored");
    const committed = await env.run(Effect.flatMap(ExtractionsRepository, (r) => r.find("ws1", requested.id)));

    // The second attempt read the extraction while it was still running (its first read and its
    // reservation's), and its store write fails.
    let staleReads = 2;
    const staleAttempt = Layer.mergeAll(
      Layer.effect(
        ExtractionsRepository,
        Effect.map(ExtractionsRepository, (repo) => ({
          ...repo,
          find: (workspaceId: string, id: string) =>
            id === requested.id && staleReads-- > 0 ? Effect.succeed({ ...committed!, status: "running" as const, finishedAt: null, reservedBytes: committed!.extractedBytes }) : repo.find(workspaceId, id),
        })),
      ),
      Layer.effect(
        ObjectStore,
        Effect.map(ObjectStore, (store) => ({ ...store, put: (k: string, content: Parameters<typeof store.put>[1]) => (k === key ? Effect.die(new Error("store down")) : store.put(k, content)) })),
      ),
    );
    const second = await env.run(Effect.provide(runExtraction("ws1", requested.id), staleAttempt));
    t.equal(second, "succeeded", "the failing attempt answers the extraction as it is");
    t.not(await env.run(env.store.stat(key)), null, "and the committed file's object is still stored");
    t.match(await env.run(Effect.flatMap(ExtractionsRepository, (r) => r.find("ws1", requested.id))), { status: "succeeded" });
  }),
);
