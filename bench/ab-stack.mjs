// Usage: node bench/ab-stack.mjs <checkout with a built dist/> [sqlite|postgres] [events]   (postgres: DATABASE_URL)
// A/B of the shared stack on SQLite (or Postgres): per event, one command transaction (epoch read,
// scratch row, outbox append) and its relay to two consumers (a projection row, the realtime
// consumer: channel log + bus). CPU time of this process per event; run builds alternately.
import { mkdtempSync } from "node:fs";
import { Effect, Layer, ManagedRuntime, Logger, LogLevel } from "effect";
const root = process.argv[2];
const dialect = process.argv[3] ?? "sqlite";
const n = Number(process.argv[4] ?? 3000);
const imp = (p) => import(new URL(`dist/${p}`, `file://${root.replace(/\/?$/, "/")}`).href);
const { openSqlite } = await imp("adapters/sqlite/openSqlite.js");
const { openPostgres } = await imp("adapters/postgres/openPostgres.js");
const { migrate } = await imp("adapters/sql/Migrations.js");
const { storageLayer } = await imp("adapters/sql/storageLayer.js");
const { realtimeBus } = await imp("adapters/sql/realtimeBus.js");
const { runQuery } = await imp("adapters/sql/runQuery.js");
const { relayOnce } = await imp("adapters/worker/OutboxRelay.js");
const { realtimeConsumer } = await imp("adapters/worker/RealtimeConsumer.js");
const { Transactions } = await imp("ports/Transactions.js");
const { Outbox } = await imp("ports/Outbox.js");
const { UserEpochs } = await imp("ports/UserEpochs.js");
const { RealtimeBus } = await imp("ports/Realtime.js");
let db;
if (dialect === "sqlite") db = await openSqlite({ filename: mkdtempSync("/tmp/ab-") + "/x.db" });
else {
  const pg = (await import("pg")).default; const admin = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const name = "dk_ab_" + Math.random().toString(36).slice(2, 8); await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(process.env.DATABASE_URL); u.pathname = "/" + name; db = await openPostgres({ connectionString: u.toString() });
  process.on("exit", () => {}); globalThis.__drop = async () => { await db.close(); await admin.query(`DROP DATABASE ${name}`); await admin.end(); };
}
await migrate(db);
await db.db.schema.createTable("scratch").addColumn("id", "text").addColumn("v", "text").execute();
const bus = await realtimeBus(db);
const runtime = ManagedRuntime.make(Layer.mergeAll(storageLayer(db), Layer.succeed(RealtimeBus, bus), Logger.minimumLogLevel(LogLevel.Error)));
const projection = { name: "projection", handles: () => true, handle: (e) => runQuery(db, (ex) => ex.insertInto("scratch").values({ id: e.id, v: "p" }).execute()) };
const consumers = [projection, realtimeConsumer({ channelsFor: (e) => [`project:${e.aggregate_id}`] })];
let seq = 0;
const envelope = () => ({ id: `e${++seq}-${Math.random()}`, type: "TaskChanged", schema_version: 1, tenant_id: "t", aggregate_id: "p1", aggregate_version: seq, occurred_at: new Date().toISOString(), actor_id: null, data: { title: "x".repeat(50) } });
const command = Effect.flatMap(Transactions, (tx) => tx.run(Effect.gen(function* () {
  yield* (yield* UserEpochs).current("u1");
  yield* runQuery(db, (ex) => ex.insertInto("scratch").values({ id: `c${seq}`, v: "c" }).execute());
  yield* (yield* Outbox).append([envelope()]);
})));
const relay = relayOnce(consumers, { workerId: "ab", batchSize: 50 });
const round = async (count, perRelay) => {
  for (let i = 0; i < count; i += perRelay) {
    for (let j = 0; j < perRelay; j++) await runtime.runPromise(command);
    let r; do { r = await runtime.runPromise(relay); } while (r.claimed > 0);
  }
};
await round(300, 10); // warm-up
const out = {};
for (const perRelay of [1, 10]) {
  const cpu = process.cpuUsage(); const t0 = performance.now();
  await round(n, perRelay);
  const used = process.cpuUsage(cpu);
  out[`batch${perRelay}`] = { cpuUsPerEvent: Math.round((used.user + used.system) / n), wallUsPerEvent: Math.round((performance.now() - t0) * 1000 / n) };
}
console.log(JSON.stringify({ build: root, dialect, n, ...out }));
await runtime.dispose(); await bus.close(); if (globalThis.__drop) await globalThis.__drop(); else await db.close();
process.exit(0);
