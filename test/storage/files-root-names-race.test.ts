/**
 * Root names are unique per holder (files migration 18, core/files/RootNames.ts), decided by the
 * database: inserts of one root name racing on separate Postgres pools, outside the drive lock
 * the cores take, store exactly one node per holder; the other inserts of a holder answer
 * `name_taken`.
 */
import { Effect, ManagedRuntime } from "effect";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { filesModule } from "../../hosts/modules/filesModule.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { inTransaction, nodeRecord, seedDrive } from "../contract/files/fixtures.js";
import { createTestPostgresDatabase } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";

t.test("racing inserts of one root name on separate pools: exactly one per holder, the rest name_taken [postgres]", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const dbs: SqlDatabase[] = [];
  for (let i = 0; i < 4; i++) dbs.push(await openPostgres({ connectionString: url, max: 4 }));
  await migrate(dbs[0]!, [filesModule]);
  const runtimes = dbs.map((db) => ManagedRuntime.make(moduleLayer(db, [filesModule])));
  t.teardown(async () => {
    for (const r of runtimes) await r.dispose();
    for (const db of dbs) await db.close();
  });
  const { workspaceId, root } = await runtimes[0]!.runPromise(seedDrive(1));
  const holders = ["ann", "ben", "carl", "dora"];
  const attempts = Array.from({ length: 16 }, (_, i) => ({ n: 10 + i, holder: holders[i % holders.length]! }));
  const answers = await Promise.all(
    attempts.map(({ n, holder }, i) =>
      runtimes[i % runtimes.length]!.runPromise(
        inTransaction(Effect.flatMap(NodesRepository, (r) => r.insert({ ...nodeRecord(workspaceId, n, root.id, "Layoffs 2027"), rootHolder: holder }))),
      ),
    ),
  );
  const winners = attempts.filter((_, i) => answers[i] === "written").map((a) => a.holder).sort();
  t.same(winners, holders, "one node per holder");
  t.equal(answers.filter((a) => a === "name_taken").length, attempts.length - holders.length, "every other insert is name_taken");
  for (const holder of holders) {
    const found = await runtimes[0]!.runPromise(Effect.flatMap(NodesRepository, (r) => r.findActiveChild(workspaceId, root.id, "Layoffs 2027", holder)));
    t.equal(found?.rootHolder, holder, `${holder}'s node is stored`);
  }
});
