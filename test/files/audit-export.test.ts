/**
 * Audit export as a job (spec should-have: "audit export as a job (JSON lines, download
 * grant)"): a workspace admin asks, the job writes every audit entry of the workspace (and only
 * its own) as JSON lines in keyset pages, and the finished export answers a download grant to
 * its requester only.
 */
import { Chunk, Effect, Stream } from "effect";
import t from "tap";
import { getAuditExport, requestAuditExport } from "../../core/files/AuditExports.js";
import { auditExportPageSize, runAuditExport } from "../../core/files/AuditExportJob.js";
import { setQuota } from "../../core/files/Drives.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

const readObject = async (env: FilesEnv, key: string): Promise<string> => {
  const content = await env.run(env.store.read(key));
  if (content === null) throw new Error(`no object ${key}`);
  const chunks = await env.run(Stream.runCollect(content).pipe(Effect.map(Chunk.toReadonlyArray)));
  return Buffer.concat(chunks).toString("utf8");
};

t.test("a workspace admin exports the workspace's audit trail as JSON lines, oldest first, across pages; only the requester downloads it", (t) =>
  forEachFilesDialect(t, "audit export", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    await workspaceWithDrive(env, "ws2", "other");
    env.directory.set("ws1", "adm2", "admin");
    await env.run(setQuota("adm", "ws1", 20_000));
    await env.run(setQuota("other", "ws2", 30_000));
    const extra = auditExportPageSize + 20;
    const base = Date.now() + 60_000; // after the quota change
    const rows = Array.from({ length: extra }, (_, i) => ({
      id: `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`,
      workspace_id: "ws1",
      actor_id: "adm",
      action: "test.entry",
      target_id: `n${i}`,
      reason: null,
      data: db.dialect === "postgres" ? { i } : JSON.stringify({ i }),
      created_at: db.dialect === "postgres" ? new Date(base + i) : new Date(base + i).toISOString(),
    }));
    await db.db.insertInto("fs_audit").values(rows).execute();

    t.match(await env.attempt(requestAuditExport({ userId: "ann", workspaceId: "ws1" })), { ok: false, error: { _tag: "Forbidden" } }, "a member who is not an admin");
    t.match(await env.attempt(requestAuditExport({ userId: "zed", workspaceId: "ws1" })), { ok: false, error: { _tag: "NotFound" } }, "a stranger");
    const requested = await env.run(requestAuditExport({ userId: "adm", workspaceId: "ws1" }));
    t.match(requested, { status: "pending", sizeBytes: null });
    const jobs = await db.db.selectFrom("jobs").select("key").where("kind", "=", "files.audit_export").execute();
    t.same(jobs.map((j) => j.key), [requested.id], "one job, keyed by the export");
    t.match(await env.run(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id })), { export: { status: "pending" }, download: null });

    t.equal(await env.run(runAuditExport("ws1", requested.id)), "done");
    const state = await env.run(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id }));
    t.match(state, { export: { status: "done", lineCount: 1 + 1 + extra }, download: { url: String } }, "the header, the quota change and the inserted entries");
    t.ok(state.download !== null && "k" in env.store.verify(state.download.url.slice(state.download.url.lastIndexOf("/") + 1), "GET"), "a GET grant of the object store");
    const text = await readObject(env, `files/ws1/audit-exports/${requested.id}.jsonl`);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    t.equal(lines.length, state.export.lineCount);
    t.match(lines[0], { type: "audit_export", id: requested.id, workspace_id: "ws1", format: "jsonl" });
    t.match(lines[1], { type: "audit", action: "drive.quota_set", workspace_id: "ws1", actor_id: "adm", created_at: String });
    t.ok(lines.slice(1).every((l) => l.workspace_id === "ws1"), "no other workspace's entries");
    const testLines = lines.filter((l) => l.action === "test.entry");
    t.same(testLines.map((l) => l.target_id), rows.map((r) => r.target_id), "every entry once, oldest first, across pages");

    t.match(await env.attempt(getAuditExport({ userId: "adm2", workspaceId: "ws1", exportId: requested.id })), { ok: false, error: { _tag: "NotFound" } }, "another admin does not see it");
    t.match(await env.attempt(getAuditExport({ userId: "other", workspaceId: "ws2", exportId: requested.id })), { ok: false, error: { _tag: "NotFound" } }, "nor another workspace");
    env.directory.set("ws1", "adm", "member");
    t.match(await env.attempt(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id })), { ok: false, error: { _tag: "NotFound" } }, "a requester no longer admin loses it");
    const late = await env.run(requestAuditExport({ userId: "adm2", workspaceId: "ws1" }));
    env.directory.set("ws1", "adm2", "member");
    t.equal(await env.run(runAuditExport("ws1", late.id)), "failed", "a requester demoted before the job ran gets a failed export");
  }),
);
