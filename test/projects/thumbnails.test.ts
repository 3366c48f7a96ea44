/**
 * Attachment thumbnails (spec rule 10: "attachment scan and thumbnail" are durable background
 * work): a clean image gets a bounded thumbnail through a retried job, infected and non-image
 * files get none, corrupt images and pixel bombs end with a recorded outcome instead of a crash,
 * the scan and the thumbnail are facts in activity and the outbox, and the thumbnail has the
 * attachment's access rules — SQLite and Postgres.
 */
import { Effect, Exit } from "effect";
import sharp from "sharp";
import t from "tap";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { makeSharpThumbnailer } from "../../adapters/thumbnails/SharpThumbnailer.js";
import { attachmentThumbnailJob, generateThumbnail } from "../../core/projects/AttachmentThumbnails.js";
import type { Job } from "../../ports/Jobs.js";
import { runningJob } from "../worker/fixtures.js";
import { projectFixture } from "./support.js";
import { startFilesServer, uploadAttachment, type FilesHost } from "../blob/filesHost.js";
import { corruptPng, pixelBombPng, pngOf } from "./thumbnail-support.js";
import { forEachDialectConfig } from "../hosts/support.js";

const encode = (s: string) => new TextEncoder().encode(s);

const jobsOf = (host: FilesHost, kind: string) => host.db.db.selectFrom("jobs").selectAll().where("kind", "=", kind).execute();
const factsOf = async (host: FilesHost, attachmentId: string) => {
  const events = await host.db.db.selectFrom("pm_task_events").selectAll().where("kind", "like", "attachment.%").orderBy("created_at").execute();
  const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
  const activity = events.map((e) => ({ id: String(e.id), kind: String(e.kind), data: parse(e.data) })).filter((e) => e.data.attachment_id === attachmentId && e.kind !== "attachment.added");
  const outbox = (await host.db.db.selectFrom("outbox").selectAll().execute())
    .map((o) => ({ id: String(o.id), type: String(o.type), event: parse(o.event) }))
    .filter((o) => o.event.aggregate_id === attachmentId && o.type !== "AttachmentAdded");
  return { activity, outbox };
};
const lastAttempt = (attachmentId: string, attempts: number): Job =>
  runningJob({ kind: attachmentThumbnailJob.kind, key: attachmentId, payload: { attachment_id: attachmentId }, attempts, maxAttempts: 4 });

t.test("the sharp thumbnailer refuses garbage and bombs with typed failures and honours EXIF orientation", async (t) => {
  const thumbnailer = makeSharpThumbnailer();
  const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromiseExit(e);
  const garbage = await run(thumbnailer.thumbnail({ bytes: encode("not an image"), contentType: "image/png" }));
  t.ok(Exit.isFailure(garbage) && garbage.cause._tag === "Fail" && garbage.cause.error.reason === "corrupt", "garbage is a typed `corrupt` failure, not a defect");
  const bomb = await run(thumbnailer.thumbnail({ bytes: pixelBombPng(), contentType: "image/png" }));
  t.ok(Exit.isFailure(bomb) && bomb.cause._tag === "Fail" && bomb.cause.error.reason === "too_many_pixels", "a 10^10-pixel header is refused before decoding");
  const text = await run(thumbnailer.thumbnail({ bytes: encode("hello"), contentType: "text/plain" }));
  t.match(text, { _tag: "Success", value: { _tag: "Unsupported" } });
  const svg = encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
  t.match(await run(thumbnailer.thumbnail({ bytes: svg, contentType: "image/png" })), { _tag: "Success", value: { _tag: "Unsupported" } }, "SVG declared as PNG is never rendered");
  // 400x200 stored sideways with EXIF orientation 6 (rotate 90°): the thumbnail is upright, 128x256.
  const sideways = await sharp({ create: { width: 400, height: 200, channels: 3, background: "#00f" } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const upright = await Effect.runPromise(thumbnailer.thumbnail({ bytes: sideways, contentType: "image/jpeg" }));
  t.equal(upright._tag, "Thumbnail");
  if (upright._tag === "Thumbnail") {
    t.match(upright.thumbnail, { contentType: "image/webp", width: 128, height: 256 });
    const meta = await sharp(upright.thumbnail.bytes).metadata();
    t.match(meta, { format: "webp", width: 128, height: 256 });
  }
  const small = await Effect.runPromise(thumbnailer.thumbnail({ bytes: await pngOf(40, 20), contentType: "image/png" }));
  t.match(small, { _tag: "Thumbnail", thumbnail: { width: 40, height: 20 } }, "small images are never enlarged");
});

forEachDialectConfig(t, `a clean PNG gets a bounded thumbnail after the scan and thumbnail jobs, recorded as facts`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { viewer: { workspace: "member", project: "viewer" } });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Mockups" });
  const { put, completed } = await uploadAttachment(host, owner, task.body.id, await pngOf(1200, 600), "mockup.png", "image/png");
  t.equal(put.status, 201);
  const id = completed.body.id;
  t.match(completed.body.thumbnail, { status: "none" }, "no thumbnail state before the scan");
  t.equal((await clients.viewer!.call("GET", `/v1/attachments/${id}/thumbnail`)).body.code, "attachment_quarantined", "quarantined: no thumbnail");

  await host.runJobs(1);
  const scanned = await owner.call("GET", `/v1/attachments/${id}`);
  t.match(scanned.body, { status: "clean", thumbnail: { status: "pending" } });
  t.equal((await owner.call("GET", `/v1/attachments/${id}/thumbnail`)).body.code, "thumbnail_not_ready");
  t.equal((await jobsOf(host, "projects.attachment_thumbnail")).length, 1, "the clean scan queued one thumbnail job");

  await host.runJobs();
  const ready = await clients.viewer!.call("GET", `/v1/attachments/${id}`);
  t.match(ready.body.thumbnail, { status: "ready", width: 256, height: 128 });
  const grant = await clients.viewer!.call("GET", `/v1/attachments/${id}/thumbnail`);
  t.equal(grant.status, 200, "a viewer gets a thumbnail grant");
  t.match(grant.body, { method: "GET" });
  const got = await host.transfer(grant.body);
  t.equal(got.status, 200);
  const meta = await sharp(got.bytes).metadata();
  t.equal(meta.format, "webp");
  t.ok(meta.width! <= 256 && meta.height! <= 256, `the thumbnail is within 256 px (${meta.width}x${meta.height})`);
  const original = await clients.viewer!.call("GET", `/v1/attachments/${id}/download`);
  t.not(original.body.url, grant.body.url, "the thumbnail is its own object");

  const facts = await factsOf(host, id);
  t.same(facts.activity.map((e) => e.kind).sort(), ["attachment.scanned", "attachment.thumbnail_ready"]);
  t.match(facts.activity.find((e) => e.kind === "attachment.scanned")!.data, { attachment_id: id, outcome: "clean" });
  t.same(facts.outbox.map((o) => o.type).sort(), ["AttachmentChanged", "AttachmentScanned"]);
  t.same(facts.outbox.map((o) => o.id).sort(), facts.activity.map((e) => e.id).sort(), "activity and outbox carry the same event ids");
  const feed = await owner.call("GET", `/v1/activity`);
  t.ok(feed.body.data.some((e: { kind: string }) => e.kind === "attachment.thumbnail_ready"), "the fact shows in the activity feed");

  // A retried delivery after success changes nothing: no new object, fact or job.
  t.equal(await host.run(generateThumbnail(id, { attempt: 2, maxAttempts: 4 })), "skipped");
  const again = await factsOf(host, id);
  t.equal(again.activity.length, 2);
  t.equal(again.outbox.length, 2);
});

forEachDialectConfig(t, `an infected file gets no thumbnail job; its scan is an AttachmentScanned fact`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Suspicious" });
  // Declared as an image, so only the verdict keeps it from the thumbnailer.
  const { completed } = await uploadAttachment(host, owner, task.body.id, encode(eicarTestString), "eicar.png", "image/png");
  await host.runJobs();
  const after = await owner.call("GET", `/v1/attachments/${completed.body.id}`);
  t.match(after.body, { status: "infected", thumbnail: { status: "none" } });
  t.equal((await jobsOf(host, "projects.attachment_thumbnail")).length, 0, "no thumbnail job for an infected file");
  const thumb = await owner.call("GET", `/v1/attachments/${completed.body.id}/thumbnail`);
  t.equal(thumb.status, 409);
  t.equal(thumb.body.code, "attachment_infected");
  const facts = await factsOf(host, completed.body.id);
  t.same(facts.activity.map((e) => [e.kind, e.data.outcome]), [["attachment.scanned", "infected"]]);
  t.same(facts.outbox.map((o) => o.type), ["AttachmentScanned"]);
});

forEachDialectConfig(t, `a text file is unsupported without a job`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Notes" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, encode("plain notes\n"), "notes.txt", "text/plain");
  await host.runJobs();
  const after = await owner.call("GET", `/v1/attachments/${completed.body.id}`);
  t.match(after.body, { status: "clean", thumbnail: { status: "unsupported", width: null } });
  t.equal((await jobsOf(host, "projects.attachment_thumbnail")).length, 0);
  const thumb = await owner.call("GET", `/v1/attachments/${completed.body.id}/thumbnail`);
  t.equal(thumb.status, 409);
  t.equal(thumb.body.code, "thumbnail_unsupported");
  t.equal((await owner.call("GET", `/v1/attachments/${completed.body.id}/download`)).status, 200, "the file itself still downloads");
});

forEachDialectConfig(t, `a corrupt image fails the job with retries, then is recorded failed; nothing crashes`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Broken" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, await corruptPng(), "broken.png", "image/png");
  const id = completed.body.id;
  await host.runJobs(1); // scan
  await host.runJobs(1); // first thumbnail attempt
  const [job] = await jobsOf(host, "projects.attachment_thumbnail");
  t.equal(job!.status, "pending", "the failed attempt is retried later");
  t.equal(Number(job!.attempts), 1);
  t.match(String(job!.last_error), /^ThumbnailInputRejected: corrupt/, "the typed failure is the recorded error");
  t.match((await owner.call("GET", `/v1/attachments/${id}`)).body.thumbnail, { status: "pending" });
  const middle = await host.runExit(attachmentThumbnailJob.run(lastAttempt(id, 3)));
  t.ok(Exit.isFailure(middle) && middle.cause._tag === "Fail", "a middle attempt is a typed failure (retried), not a defect");
  await host.run(attachmentThumbnailJob.run(lastAttempt(id, 4)));
  t.match((await owner.call("GET", `/v1/attachments/${id}`)).body.thumbnail, { status: "failed" });
  t.equal((await owner.call("GET", `/v1/attachments/${id}/thumbnail`)).body.code, "thumbnail_failed");
  const facts = await factsOf(host, id);
  t.same(facts.activity.map((e) => e.kind), ["attachment.scanned"], "no thumbnail_ready fact");
});

forEachDialectConfig(t, `a huge-dimension image is refused by the pixel limit and recorded unsupported at once`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Bomb" });
  const bomb = pixelBombPng();
  t.ok(bomb.length < 1024, "a few hundred bytes claiming 10^10 pixels");
  const { completed } = await uploadAttachment(host, owner, task.body.id, bomb, "bomb.png", "image/png");
  await host.runJobs();
  const row = await host.db.db.selectFrom("pm_attachments").selectAll().where("id", "=", completed.body.id).executeTakeFirstOrThrow();
  t.match(row, { status: "clean", thumbnail_status: "unsupported", thumbnail_key: null });
  t.match(String(row.thumbnail_detail), /pixels/);
  const [job] = await jobsOf(host, "projects.attachment_thumbnail");
  t.match(job, { status: "done" }, "refused in one attempt, no retries");
  t.equal(Number(job!.attempts), 1);
});

forEachDialectConfig(t, `the thumbnail grant has the attachment's access rules: 404 for guests without access and other workspaces`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { guest: { workspace: "guest" }, viewer: { workspace: "member", project: "viewer" } });
  const outsider = await host.client();
  await outsider.call("POST", "/v1/workspaces", { name: "Other" });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Private" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, await pngOf(300, 300), "private.png", "image/png");
  await host.runJobs();
  const id = completed.body.id;
  t.equal((await clients.viewer!.call("GET", `/v1/attachments/${id}/thumbnail`)).status, 200);
  for (const [name, who] of [["an unshared guest", clients.guest!], ["another workspace", outsider]] as const) {
    const answer = await who.call("GET", `/v1/attachments/${id}/thumbnail`);
    t.equal(answer.status, 404, `${name}: 404`);
    t.equal(answer.body.code, "not_found");
  }
  t.equal((await owner.call("GET", `/v1/attachments/not-an-id/thumbnail`)).status, 404);
  // The database keeps a thumbnail state off attachments that are not clean.
  const row = await host.db.db.selectFrom("pm_attachments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  await t.rejects(
    host.db.db.insertInto("pm_attachments").values({ ...row, id: `${id}-x`, object_key: `${row.object_key}-x`, thumbnail_key: null, status: "quarantined", thumbnail_status: "pending" }).execute(),
    "CHECK: only a clean attachment has a thumbnail state",
  );
  await t.rejects(
    host.db.db.updateTable("pm_attachments").set({ thumbnail_key: null }).where("id", "=", id).execute(),
    "CHECK: a ready thumbnail always has its object",
  );
});
