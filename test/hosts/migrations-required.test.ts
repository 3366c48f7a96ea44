/**
 * With MIGRATE_ON_START=false an operator runs `domainkit migrate` apart (a release step). A server
 * or worker started before it, on a database that lacks migrations this version needs, refuses to
 * start with one line naming what is missing and the command to run; it never serves requests
 * that could only fail. On SQLite and Postgres.
 */
import t from "tap";
import { sql } from "kysely";
import { createServer } from "../../hosts/ReferenceServer.js";
import { openConfiguredDatabase } from "../../hosts/Database.js";
import { dialects } from "../support/databases.js";
import { cli, startReferenceServer, testConfig } from "./support.js";

for (const dialect of dialects) {
  t.test(`a server or worker with MIGRATE_ON_START=false refuses an unmigrated database and names \`domainkit migrate\` [${dialect}]`, async (t) => {
    const config = await testConfig(dialect, t, { MIGRATE_ON_START: "false" }, { migrated: false });
    await t.rejects(createServer(config), { name: "StartupError", message: /lacks \d+ migrations? this version needs \(first: kernel\/0001_kernel_tables\).*domainkit migrate/ });
    const worker = await cli(config, ["worker"], { MIGRATE_ON_START: "false" }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    t.equal(worker.code, 1, "the worker exits 1");
    t.match(worker.stderr, /^domainkit: cannot start: the database lacks \d+ migrations? this version needs .*domainkit migrate/m);

    await cli(config, ["migrate"]);
    const { server } = await startReferenceServer(t, config);
    t.equal((await fetch(`${server.url}/readyz`)).status, 200, "once migrated, the server starts");
  });

  t.test(`after an upgrade, a migration the database lacks is named [${dialect}]`, async (t) => {
    const config = await testConfig(dialect, t, { MIGRATE_ON_START: "false" });
    // The newest kernel migration as if this version had just added it.
    const database = await openConfiguredDatabase(config);
    const newest = await sql<{ version: number; name: string }>`SELECT version, name FROM domainkit_migrations WHERE module = 'kernel' ORDER BY version DESC LIMIT 1`.execute(database.db);
    await sql`DELETE FROM domainkit_migrations WHERE module = 'kernel' AND version = ${newest.rows[0]!.version}`.execute(database.db);
    await database.close();
    const label = `kernel/${String(newest.rows[0]!.version).padStart(4, "0")}_${newest.rows[0]!.name}`;
    await t.rejects(createServer(config), { name: "StartupError", message: new RegExp(`lacks 1 migration this version needs \\(first: ${label}\\)`) });
  });
}
