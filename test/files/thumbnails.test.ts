/**
 * Thumbnails (spec should-have: "thumbnails for images"): publishing an image version queues a
 * thumbnail job keyed by the version; the job makes a WebP through the Thumbnailer (sharp) into
 * the object store, once; `GET /v1/nodes/:id/thumbnail`'s use case answers viewers a short-lived
 * grant (never bytes), 404 for non-images, images not yet thumbnailed, and callers who may not
 * see the file.
 */
import sharp from "sharp";
import t from "tap";
import { grantAccess } from "../../core/files/Permissions.js";
import { makeThumbnail } from "../../core/files/MakeThumbnail.js";
import { requestThumbnail } from "../../core/files/ThumbnailQueries.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { sweepTrash } from "../../core/files/TrashPurgeSweep.js";
import { at } from "../worker/fixtures.js";
import { bytesOf, filesRuntime, forEachFilesDialect, publishFile, workspaceWithDrive } from "./support.js";

t.test("a published image gets one thumbnail, made by its job; viewers get a short-lived grant to it", (t) =>
  forEachFilesDialect(t, "thumbnail", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob", "cid"]);
    const png = await sharp({ create: { width: 600, height: 300, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    t.ok(png.length < 5_000, "small enough for the test drive");
    const image = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "red.png", bytes: png, contentType: "image/png" });
    const text = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "notes.txt", bytes: bytesOf("no picture"), contentType: "text/plain" });
    const jobs = await db.db.selectFrom("jobs").select("key").where("kind", "=", "files.thumbnail").execute();
    t.same(jobs.map((j) => j.key), [image.id], "only the image's publication queued a thumbnail job, keyed by its version");

    const ask = (userId: string, nodeId: string) => env.attempt(requestThumbnail({ userId, workspaceId: "ws1", nodeId }));
    t.match(await ask("ann", image.nodeId), { ok: false, error: { _tag: "NotFound", resource: "thumbnail" } }, "404 until the job made it");
    t.equal(await env.run(makeThumbnail("ws1", image.id)), "ready");
    t.equal(await env.run(makeThumbnail("ws1", image.id)), "ready", "a second run changes nothing");
    t.equal((await db.db.selectFrom("fs_thumbnails").select("version_id").execute()).length, 1, "one thumbnail per version");

    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: image.nodeId, granteeId: "bob", role: "viewer" }));
    const grant = await ask("bob", image.nodeId);
    t.match(grant, { ok: true, value: { versionId: image.id, contentType: "image/webp", width: 256, height: 128 } }, "a viewer gets it, scaled to 256 px");
    if (!grant.ok) throw new Error("no grant");
    t.ok(grant.value.expiresAt.getTime() - Date.now() <= 5 * 60_000, "short-lived");
    const claims = env.store.verify(grant.value.url.slice(grant.value.url.lastIndexOf("/") + 1), "GET");
    t.ok("k" in claims, "the url is a GET grant of the object store");
    const stored = await env.run(env.store.stat(`files/ws1/thumbnails/${image.id}`));
    t.ok(stored !== null && stored.size > 0, "the thumbnail lives in the object store");

    t.match(await ask("cid", image.nodeId), { ok: false, error: { _tag: "NotFound" } }, "a member without access learns nothing");
    t.match(await ask("zed", image.nodeId), { ok: false, error: { _tag: "NotFound" } }, "nor does a stranger");
    t.match(await ask("ann", text.nodeId), { ok: false, error: { _tag: "NotFound", resource: "thumbnail" } }, "a text file has none");
    t.match(await ask("ann", root), { ok: false, error: { code: "not_a_file" } });
  }),
);

t.test("bytes that are not the declared image are recorded and never thumbnailed", (t) =>
  forEachFilesDialect(t, "thumbnail refused", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const fake = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fake.png", bytes: bytesOf("<svg xmlns='http://www.w3.org/2000/svg'/>"), contentType: "image/png" });
    const status = await env.run(makeThumbnail("ws1", fake.id));
    t.ok(status === "unsupported" || status === "rejected", `recorded ${status}`);
    t.equal(await env.run(makeThumbnail("ws1", fake.id)), status, "and not tried again");
    t.match(await env.attempt(requestThumbnail({ userId: "ann", workspaceId: "ws1", nodeId: fake.nodeId })), { ok: false, error: { _tag: "NotFound" } });
  }),
);

t.test("the trash purge deletes a purged version's thumbnail and its object", (t) =>
  forEachFilesDialect(t, "thumbnail purge", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 0, g: 0, b: 200 } } }).png().toBuffer();
    const image = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "blue.png", bytes: png, contentType: "image/png" });
    t.equal(await env.run(makeThumbnail("ws1", image.id)), "ready");
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: image.nodeId }));
    t.match(await env.run(at(Date.now() + 31 * 86_400_000)(sweepTrash({ day: "2026-01-01", after: null }))), [{ outcome: "purged", versions: 1 }]);
    t.equal((await db.db.selectFrom("fs_thumbnails").select("version_id").execute()).length, 0, "the row went with its version");
    t.equal(await env.run(env.store.stat(`files/ws1/thumbnails/${image.id}`)), null, "its object too");
  }),
);
