/**
 * Files migration 19: the open upload sessions a member removal aborts (UploadsRepository's
 * `openOf`, audit 2 F5) are read through the partial index fs_upload_sessions_open_by_creator,
 * however many sessions the workspace has had (SQLite, with ANALYZE statistics; the query as the
 * repository runs it, with its bound values).
 */
import { Effect, ManagedRuntime } from "effect";
import { sql } from "kysely";
import t from "tap";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { filesModule } from "../../hosts/modules/filesModule.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { seedDrive } from "../contract/files/fixtures.js";
import { openTestDatabase } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";

const settledSessions = 20_000;

t.test("SQLite: a member's open uploads of a workspace are read through the open-by-creator index", async (t) => {
  const db = await openTestDatabase("sqlite", t, [filesModule]);
  const runtime = ManagedRuntime.make(moduleLayer(db, [filesModule]));
  t.teardown(() => runtime.dispose());
  const { workspaceId, root } = await runtime.runPromise(seedDrive(1));
  const at = featuresFor(db).timeToDb(new Date());
  const expires = featuresFor(db).timeToDb(new Date(Date.now() + 3_600_000));
  // Many settled sessions of the member, and one open one.
  await sql`
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${settledSessions})
    INSERT INTO fs_upload_sessions (id, workspace_id, parent_id, node_id, name, size_bytes, sha256, content_type, part_size_bytes, part_count, status, reserved_bytes, version_id, store_upload_id, created_by, expires_at, created_at, updated_at)
    SELECT printf('up-%08d', i), ${workspaceId}, ${root.id}, NULL, printf('f-%06d', i), 10, ${"a".repeat(64)}, 'text/plain', 100, 1, CASE WHEN i = 7 THEN 'open' ELSE 'aborted' END, CASE WHEN i = 7 THEN 10 ELSE 0 END, NULL, NULL, 'kit-user', ${expires}, ${at}, ${at} FROM seq`.execute(db.db);
  await sql`ANALYZE`.execute(db.db);

  const { executed } = await capturePrepared(
    (text) => text.includes("fs_upload_sessions") && text.includes("created_by") && text.startsWith("select"),
    async () => {
      const open = await runtime.runPromise(Effect.flatMap(UploadsRepository, (r) => r.openOf(workspaceId, "kit-user")));
      t.same(open.map((s) => s.id), ["up-00000007"], "the one open session");
    },
  );
  t.equal(executed.size, 1, "openOf ran");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.some((detail) => detail.includes("fs_upload_sessions_open_by_creator")), `through the index: ${details.join(" / ")}`);
  }
});
