/** DATABASE_POOL_MAX: the Postgres pool a process opens is at most that many connections. */
import t from "tap";
import { postgresPool } from "../../adapters/postgres/openPostgres.js";
import { loadConfig } from "../../hosts/Config.js";
import { openConfiguredDatabase } from "../../hosts/Database.js";
import { createTestPostgresDatabase } from "../support/databases.js";

t.test("the Postgres pool holds at most DATABASE_POOL_MAX connections", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const config = loadConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: "3" });
  const database = await openConfiguredDatabase(config);
  t.teardown(database.close);
  const pool = postgresPool(database);
  t.equal(pool?.options.max, 3, "the pool's bound is the configured one");
  // Six concurrent statements through a pool of three: never more than three connections.
  await Promise.all(Array.from({ length: 6 }, () => database.db.selectNoFrom((eb) => eb.fn("pg_sleep", [eb.val(0.05)]).as("slept")).execute()));
  t.ok((pool?.totalCount ?? 0) <= 3, `${pool?.totalCount} connections opened`);
});
