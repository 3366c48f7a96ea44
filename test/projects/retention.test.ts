/**
 * Retention of what the module keeps in the object store (spec, Relationships 5: "Expired
 * upload staging objects and sanitized content are hard-deleted after retention"), run by the
 * module's trash purge job with the clock moved — SQLite and Postgres:
 * - a workspace export's object is deleted 7 days after it completed; the export becomes
 *   `expired` (its row and metadata stay) and its download answers 410 `export_expired`;
 * - quarantined content (an infected or scan_failed attachment) is deleted 30 days after its
 *   verdict; the row and its status stay, and its download still refuses.
 * Both purges go object first, row second, so a crash in between is finished by the next run;
 * a second run finds nothing to do. The module's options `exportRetentionDays` and
 * `quarantineRetentionDays` set both retentions, and a worker start schedules the purge.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import t from "tap";
import { attachmentScanJob } from "../../core/projects/AttachmentScan.js";
import { defaultTrashPurgePolicy, runTrashPurge, trashPurgeJobKind } from "../../core/projects/TrashPurge.js";
import { makeProjectsModule, projectsTrashPurgePolicy } from "../../hosts/modules/projectsModule.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import type { Job } from "../../ports/Jobs.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { ScannerUnavailable, type Scanner } from "../../ports/Scanner.js";
import { startFilesServer, uploadAttachment, type FilesHost } from "../blob/filesHost.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { at } from "../worker/fixtures.js";
import { projectFixture } from "./support.js";

const encode = (s: string) => new TextEncoder().encode(s);
const hour = 60 * 60_000;
const day = 24 * hour;

const stat = (host: FilesHost, key: string) => host.run(Effect.flatMap(ObjectStore, (s) => s.stat(key)));
const exportKey = async (host: FilesHost, id: string) =>
  (await host.db.db.selectFrom("pm_exports").select("object_key").where("id", "=", id).executeTakeFirstOrThrow()).object_key as string;
const attachmentRow = (host: FilesHost, id: string) =>
  host.db.db.selectFrom("pm_attachments").select(["object_key", "status", "content_purged_at"]).where("id", "=", id).executeTakeFirstOrThrow();
const outcome = (run: () => Promise<unknown>) =>
  run().then(
    () => "accepted",
    () => "refused",
  );

forEachDialectConfig(t, `an export's object is hard-deleted 7 days after it completed: the export is expired and its download answers 410`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId } = await projectFixture(host.client);
  const requested = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  await host.runJobs();
  const done = await owner.call("GET", `/v1/exports/${requested.body.id}`);
  t.equal(done.body.status, "done");
  const key = await exportKey(host, requested.body.id);
  const grant = await owner.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(grant.status, 200);
  t.ok(await stat(host, key), "the finished export is in the store");

  const completedAt = Date.parse(done.body.completed_at);
  const early = await host.run(at(completedAt + 7 * day - hour)(runTrashPurge()));
  t.equal(early.expiredExports, 0, "nothing expires before the retention ends");
  t.ok(await stat(host, key), "the object is kept until then");
  t.equal((await owner.call("GET", `/v1/exports/${requested.body.id}/download`)).status, 200);

  const late = await host.run(at(completedAt + 7 * day + hour)(runTrashPurge()));
  t.equal(late.expiredExports, 1);
  t.equal(await stat(host, key), null, "the object store no longer holds the export's bytes");
  const expired = await owner.call("GET", `/v1/exports/${requested.body.id}`);
  t.equal(expired.status, 200, "the export itself is still answered");
  t.match(expired.body, { status: "expired", size: done.body.size, completed_at: done.body.completed_at });
  const gone = await owner.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(gone.status, 410);
  t.equal(gone.body.code, "export_expired");
  t.match(gone.headers.get("content-type"), /application\/problem\+json/);
  t.equal((await host.transfer(grant.body)).status, 404, "a grant issued before expiry serves nothing");

  const again = await host.run(at(completedAt + 8 * day)(runTrashPurge()));
  t.equal(again.expiredExports, 0, "a second run has nothing to do");

  // A crash after the object was deleted and before the row was marked: the next run finishes it.
  const second = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  await host.runJobs();
  const secondDone = await owner.call("GET", `/v1/exports/${second.body.id}`);
  const secondKey = await exportKey(host, second.body.id);
  t.ok(await host.run(Effect.flatMap(ObjectStore, (s) => s.remove(secondKey))), "the object is removed, then the process stops");
  t.equal((await owner.call("GET", `/v1/exports/${second.body.id}`)).body.status, "done");
  const resumed = await host.run(at(Date.parse(secondDone.body.completed_at) + 7 * day + hour)(runTrashPurge()));
  t.equal(resumed.expiredExports, 1, "the next run marks it");
  t.equal((await owner.call("GET", `/v1/exports/${second.body.id}`)).body.status, "expired");
});

forEachDialectConfig(t, `an export moves to expired only from done, and an expired export stays expired (database)`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId } = await projectFixture(host.client);
  const write = (statement: ReturnType<typeof sql>) => () => statement.execute(host.db.db);
  const pending = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'expired' WHERE id = ${pending.body.id}`)), "refused", "pending → expired is refused");
  await host.runJobs();
  t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'expired' WHERE id = ${pending.body.id}`)), "accepted", "done → expired");
  t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'done' WHERE id = ${pending.body.id}`)), "refused", "expired → done is refused");
  t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'bogus' WHERE id = ${pending.body.id}`)), "refused", "an unknown status is refused");
  t.equal((await owner.call("GET", `/v1/exports/${pending.body.id}`)).body.status, "expired");
});

forEachDialectConfig(t, `infected content is hard-deleted 30 days after the verdict; the attachment and its status stay`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Suspicious" });
  const infected = await uploadAttachment(host, owner, task.body.id, encode(eicarTestString), "eicar.com");
  const clean = await uploadAttachment(host, owner, task.body.id, encode("fine minutes"), "minutes.txt");
  await host.runJobs();
  const verdict = await owner.call("GET", `/v1/attachments/${infected.completed.body.id}`);
  t.equal(verdict.body.status, "infected");
  const scannedAt = Date.parse(verdict.body.scanned_at);
  const row = await attachmentRow(host, infected.completed.body.id);
  const cleanRow = await attachmentRow(host, clean.completed.body.id);
  t.ok(await stat(host, row.object_key as string), "the infected bytes are in the store");

  const early = await host.run(at(scannedAt + 30 * day - hour)(runTrashPurge()));
  t.equal(early.quarantinePurged, 0, "nothing is deleted before the retention ends");
  t.ok(await stat(host, row.object_key as string));

  const late = await host.run(at(scannedAt + 30 * day + hour)(runTrashPurge()));
  t.equal(late.quarantinePurged, 1);
  t.equal(await stat(host, row.object_key as string), null, "the object store no longer holds the infected bytes");
  t.ok(await stat(host, cleanRow.object_key as string), "a clean attachment's object is kept");
  const after = await owner.call("GET", `/v1/attachments/${infected.completed.body.id}`);
  t.equal(after.status, 200, "the attachment row is kept");
  t.match(after.body, { status: "infected", scan_detail: "EICAR-Test-File" });
  t.not((await attachmentRow(host, infected.completed.body.id)).content_purged_at, null, "the row records when its content was deleted");
  const refused = await owner.call("GET", `/v1/attachments/${infected.completed.body.id}/download`);
  t.equal(refused.status, 409);
  t.equal(refused.body.code, "attachment_infected");
  t.equal((await owner.call("GET", `/v1/attachments/${clean.completed.body.id}/download`)).status, 200);

  const again = await host.run(at(scannedAt + 31 * day)(runTrashPurge()));
  t.equal(again.quarantinePurged, 0, "a second run has nothing to do");

  const write = (statement: ReturnType<typeof sql>) => () => statement.execute(host.db.db);
  t.equal(
    await outcome(write(sql`UPDATE pm_attachments SET content_purged_at = scanned_at WHERE id = ${clean.completed.body.id}`)),
    "refused",
    "a clean attachment's content is never marked deleted (database)",
  );
  t.equal(
    await outcome(write(sql`UPDATE pm_attachments SET content_purged_at = NULL WHERE id = ${infected.completed.body.id}`)),
    "refused",
    "deleted content never comes back (database)",
  );
});

forEachDialectConfig(t, `scan_failed content is hard-deleted 30 days after the verdict, also after a crash between the object and the row`, async (t, config) => {
  const down: Scanner = { scan: () => Effect.fail(new ScannerUnavailable({ detail: "engine offline" })) };
  const host = await startFilesServer(t, config, { scanner: down });
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Scan outage" });
  const ids: string[] = [];
  for (const name of ["a.txt", "b.txt"]) {
    const { completed } = await uploadAttachment(host, owner, task.body.id, encode(`never scanned ${name}`), name);
    const last: Job = { id: "j", kind: attachmentScanJob.kind, key: completed.body.id, payload: { attachment_id: completed.body.id }, status: "running", attempts: 5, maxAttempts: 5, runAt: new Date(), lastError: null };
    await host.run(attachmentScanJob.run(last));
    ids.push(completed.body.id);
  }
  const rows = await Promise.all(ids.map((id) => attachmentRow(host, id)));
  t.same(rows.map((r) => r.status), ["scan_failed", "scan_failed"]);
  const scannedAt = Date.parse((await owner.call("GET", `/v1/attachments/${ids[1]}`)).body.scanned_at);
  // The first one's object was deleted by a run that stopped before marking its row.
  t.ok(await host.run(Effect.flatMap(ObjectStore, (s) => s.remove(rows[0]!.object_key as string))));

  const policy = { ...defaultTrashPurgePolicy, batchSize: 1 };
  const late = await host.run(at(scannedAt + 30 * day + hour)(runTrashPurge(policy)));
  t.equal(late.quarantinePurged, 2, "both are settled, one batch of one at a time");
  for (const r of rows) t.equal(await stat(host, r.object_key as string), null, "the object store no longer holds the unscanned bytes");
  for (const id of ids) {
    const after = await owner.call("GET", `/v1/attachments/${id}`);
    t.match(after.body, { status: "scan_failed", scan_detail: "engine offline" });
    t.equal((await owner.call("GET", `/v1/attachments/${id}/download`)).body.code, "attachment_scan_failed");
  }
  t.equal((await host.run(at(scannedAt + 31 * day)(runTrashPurge(policy)))).quarantinePurged, 0, "a second run has nothing to do");
});

forEachDialectConfig(t, `the module's retention options set how long the purge keeps exports, and a worker start schedules the purge`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId } = await projectFixture(host.client);
  const purgeJobs = () => host.db.db.selectFrom("jobs").select(["key"]).where("kind", "=", trashPurgeJobKind).where("status", "=", "pending").execute();
  t.same(await purgeJobs(), [], "nothing has scheduled the purge yet");
  const module = makeProjectsModule({ exportRetentionDays: 1, quarantineRetentionDays: 2 });
  await host.run(module.scheduleRecurring!(Date.now()));
  t.equal((await purgeJobs()).length, 1, "a worker start schedules the next slot, so exports expire without any upload");

  const requested = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  await host.runJobs();
  const done = await owner.call("GET", `/v1/exports/${requested.body.id}`);
  const key = await exportKey(host, requested.body.id);
  const handler = module.jobHandlers!.find((h) => h.kind === trashPurgeJobKind)!;
  const job: Job = { id: "j", kind: trashPurgeJobKind, key: "slot", payload: {}, status: "running", attempts: 1, maxAttempts: 5, runAt: new Date(), lastError: null };
  const completedAt = Date.parse(done.body.completed_at);
  await host.run(at(completedAt + day - hour)(handler.run(job)));
  t.equal((await owner.call("GET", `/v1/exports/${requested.body.id}`)).body.status, "done", "kept within the configured day");
  await host.run(at(completedAt + day + hour)(handler.run(job)));
  t.equal((await owner.call("GET", `/v1/exports/${requested.body.id}`)).body.status, "expired", "expired after the configured day");
  t.equal(await stat(host, key), null);

  t.same(projectsTrashPurgePolicy({}), defaultTrashPurgePolicy, "7 and 30 days by default");
  t.equal(projectsTrashPurgePolicy({ quarantineRetentionDays: 2 }).quarantineRetentionMs, 2 * day);
  t.throws(() => makeProjectsModule({ exportRetentionDays: 0 }), /exportRetentionDays/, "a retention under a day is refused at start");
  t.throws(() => makeProjectsModule({ quarantineRetentionDays: 1.5 }), /quarantineRetentionDays/);
});
