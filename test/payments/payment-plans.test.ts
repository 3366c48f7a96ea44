/**
 * Payment statements that must not read a table that keeps every row ever written:
 * - a dispute notice names the disputed payment by the provider's id, and
 *   `Disputes.intentOfProviderPayment` finds the intent through payments migration 9
 *   (payment_intents_provider_payment); without it every dispute read every intent;
 * - the dead merchant webhook deliveries (`listDeadDeliveries`) are read through the partial index
 *   payment_webhook_deliveries_dead, and the open reconciliation exceptions
 *   (`openExceptionSummary`) through payment_reconciliation_exceptions_open (migration 10): with
 *   the status bound as a value neither index was usable and each read every row.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlDisputes } from "../../adapters/sql/payments/SqlDisputes.js";
import { makeSqlReconciliationRepository } from "../../adapters/sql/payments/SqlReconciliationRepository.js";
import { makeSqlWebhookEndpoints } from "../../adapters/sql/payments/SqlWebhookEndpoints.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, planNodes, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";

t.test("SQLite: a dispute finds its intent by the provider's payment id through the index", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const { result, executed } = await capturePrepared(
    (text) => text.includes('from "payment_intents"'),
    () => Effect.runPromise(makeSqlDisputes(db).intentOfProviderPayment("pp_unknown")),
  );
  t.equal(result, null, "no intent has that payment");
  t.equal(executed.size, 1, "one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.some((detail) => /^SEARCH payment_intents USING INDEX payment_intents_provider_payment \(provider_payment_id=\?\)/.test(detail)), "seeks by provider payment id", { details });
  }
});

t.test("Postgres: the lookup's cached generic plan uses the index", async (t) => {
  const db = await openTestDatabase("postgres", t);
  const sent = await sentToPostgres(
    (text) => text.includes('from "payment_intents"'),
    () => Effect.runPromise(makeSqlDisputes(db).intentOfProviderPayment("pp_unknown")),
  );
  t.equal(sent.length, 1, "one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  t.ok(nodes.some((node) => node["Index Name"] === "payment_intents_provider_payment"), "uses the index", { nodes });
  t.notOk(nodes.some((node) => node["Node Type"] === "Seq Scan"), "no sequential scan", { nodes });
});

/** The operator reads of work left undone: dead deliveries (a page of them) and open exceptions. */
const readsOfOpenWork: ReadonlyArray<{ readonly name: string; readonly index: string; readonly table: string; readonly run: (db: SqlDatabase) => Promise<ReadonlyArray<unknown>> }> = [
  { name: "dead deliveries", index: "payment_webhook_deliveries_dead", table: "payment_webhook_deliveries", run: (db) => Effect.runPromise(makeSqlWebhookEndpoints(db).listDeadDeliveries({ limit: 50 })) },
  { name: "open exception summary", index: "payment_reconciliation_exceptions_open", table: "payment_reconciliation_exceptions", run: (db) => Effect.runPromise(makeSqlReconciliationRepository(db).openExceptionSummary()) },
];

for (const read of readsOfOpenWork) {
  t.test(`SQLite: the ${read.name} read goes through ${read.index}`, async (t) => {
    const db = await openTestDatabase("sqlite", t);
    const { result, executed } = await capturePrepared((text) => text.includes(`from "${read.table}"`), () => read.run(db));
    t.same(result, [], "none yet");
    t.equal(executed.size, 1, "one statement");
    for (const [text, parameters] of executed) {
      const details = await planDetails(db, text, parameters);
      t.ok(details.some((detail) => new RegExp(`USING (COVERING )?INDEX ${read.index}\\b`).test(detail)), "uses the partial index", { details });
    }
  });

  t.test(`Postgres: the ${read.name} read keeps ${read.index} in its generic plan`, async (t) => {
    const db = await openTestDatabase("postgres", t);
    const sent = await sentToPostgres((text) => text.includes(`from "${read.table}"`), () => read.run(db));
    t.equal(sent.length, 1, "one statement");
    const nodes = planNodes(await genericPlan(db, sent[0]!));
    t.ok(nodes.some((node) => node["Index Name"] === read.index), "uses the partial index", { nodes });
  });
}
