/**
 * Nothing is left behind on a race (spec: trash "object purge follows retention"; Background
 * work: thumbnail, trash retention purge): a thumbnail job that read its version before the
 * trash purge deleted it, and stores the thumbnail after, leaves no object in the store — the
 * purge removed only the thumbnails it found, so the job removes the one it made — SQLite and
 * Postgres.
 */
import { Effect, Layer } from "effect";
import sharp from "sharp";
import t from "tap";
import { makeThumbnail } from "../../core/files/MakeThumbnail.js";
import { thumbnailKey } from "../../core/files/MakeThumbnail.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { sweepTrash } from "../../core/files/TrashPurgeSweep.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { at } from "../worker/fixtures.js";
import { filesRuntime, forEachFilesDialect, publishFile, workspaceWithDrive } from "./support.js";

t.test("a thumbnail made after its version was purged is not left in the store", (t) =>
  forEachFilesDialect(t, "thumbnail of a purged version", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: { r: 10, g: 200, b: 10 } } }).png().toBuffer();
    const image = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "green.png", bytes: png, contentType: "image/png" });
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: image.nodeId }));
    // The purge runs while the job is making the thumbnail (it read the version and its bytes).
    const purgeWhileMaking = Layer.effect(
      Thumbnailer,
      Effect.map(Thumbnailer, (thumbnailer) => ({
        ...thumbnailer,
        thumbnail: (input: Parameters<typeof thumbnailer.thumbnail>[0]) =>
          Effect.flatMap(Effect.promise(() => env.run(at(Date.now() + 31 * 86_400_000)(sweepTrash({ day: "2026-12-29", after: null })))), () => thumbnailer.thumbnail(input)),
      })),
    );
    const exit = await env.runtime.runPromiseExit(Effect.provide(makeThumbnail("ws1", image.id), purgeWhileMaking));
    t.equal(await env.run(Effect.flatMap(VersionsRepository, (r) => r.find("ws1", image.id))), null, "the version was purged meanwhile");
    t.match(exit, { _tag: "Success", value: null }, "the job ends without failing: there is nothing to record");
    t.equal(await env.run(env.store.stat(thumbnailKey("ws1", image.id))), null, "and no thumbnail object is left");
    t.same(await db.db.selectFrom("fs_thumbnails").select("version_id").execute(), [], "nor a row");
  }),
);
