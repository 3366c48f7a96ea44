/**
 * Payment statements that must not read a table that keeps every row ever written:
 * - a dispute notice names the disputed payment by the provider's id, and
 *   `Disputes.intentOfProviderPayment` finds the intent through payments migration 9
 *   (payment_intents_provider_payment); without it every dispute read every intent;
 * - the dead merchant webhook deliveries (`listDeadDeliveries`) are read through the partial index
 *   payment_webhook_deliveries_dead, and the open reconciliation exceptions
 *   (`openExceptionSummary`) through payment_reconciliation_exceptions_open (migration 10): with
 *   the status bound as a value neither index was usable and each read every row; the sweep of
 *   unrecorded provider answers (`pendingAttemptsBefore`) reads payment_attempts_pending (migration 13);
 * - settlement reconciliation's captures and refunds of one window (`settledInWindow`) start from
 *   the window's ledger transactions (migration 11) and find each intent or refund by key; joined
 *   the other way round every capture and refund ever made was read on every run.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import t from "tap";
import { makeSqlDisputes } from "../../adapters/sql/payments/SqlDisputes.js";
import { makeSqlPaymentsRepository } from "../../adapters/sql/payments/SqlPaymentsRepository.js";
import { makeSqlReconciliationRepository } from "../../adapters/sql/payments/SqlReconciliationRepository.js";
import { makeSqlWebhookEndpoints } from "../../adapters/sql/payments/SqlWebhookEndpoints.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
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
  {
    name: "unrecorded answers sweep",
    index: "payment_attempts_pending",
    table: "payment_attempts",
    run: (db) => Effect.runPromise(makeSqlPaymentsRepository(db).pendingAttemptsBefore(new Date(), 100)),
  },
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

const window = { from: new Date("2026-11-24T00:00:00Z"), to: new Date("2026-11-25T00:00:00Z") };
const settled = (db: SqlDatabase) => Effect.runPromise(makeSqlReconciliationRepository(db).settledInWindow(window));

t.test("SQLite: a window's settled captures and refunds are found from the window's ledger transactions, by key", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const { result, executed } = await capturePrepared((text) => text.includes('"t"."created_at" >='), () => settled(db));
  t.same(result, [], "nothing settled yet");
  t.equal(executed.size, 2, "captures and refunds");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.some((detail) => /^SEARCH t USING INDEX payment_ledger_transactions_created \(created_at>\? AND created_at<\?\)/.test(detail)), "seeks the window's transactions", { details });
    t.notOk(details.some((detail) => detail.startsWith("SCAN ")), "reads no table whole", { details });
  }
});

t.test("Postgres: with a payment history, a window's read seeks the window and finds each capture and refund by key", async (t) => {
  const db = await openTestDatabase("postgres", t);
  // 200,000 captures and refunds, one every 15 minutes: only the window's 96 must be read. Seeded
  // without the foreign-key triggers (no merchants behind them), then analyzed.
  await db.db.connection().execute(async (connection) => {
    await sql`SET session_replication_role = replica`.execute(connection);
    await sql`INSERT INTO payment_intents (id, merchant_id, amount_minor, currency, capture_method, status, amount_capturable_minor,
        amount_captured_minor, amount_refunded_minor, attempt_count, version, created_at, updated_at)
      SELECT 'pi-' || i, 'm1', 1000, 'EUR', 'automatic', 'succeeded', 0, 1000, 0, 1, 1, now(), now() FROM generate_series(1, 200000, 2) AS i`.execute(connection);
    await sql`INSERT INTO payment_attempts (id, intent_id, merchant_id, number, reference, payment_method, status, created_at, updated_at)
      SELECT 'a-' || i, 'pi-' || i, 'm1', 1, 'ref-' || i, 'pm_card_visa', 'captured', now(), now() FROM generate_series(1, 200000, 2) AS i`.execute(connection);
    await sql`INSERT INTO payment_refunds (id, intent_id, merchant_id, amount_minor, currency, status, reference, created_at, updated_at)
      SELECT 'r-' || i, 'pi-1', 'm1', 100, 'EUR', 'succeeded', 'rref-' || i, now(), now() FROM generate_series(2, 200000, 2) AS i`.execute(connection);
    await sql`INSERT INTO payment_ledger_transactions (id, source, merchant_id, reverses, created_at)
      SELECT 'tx-' || i, CASE WHEN i % 2 = 0 THEN 'refund:r-' || i ELSE 'payment_intent:pi-' || i || ':capture' END, 'm1', NULL,
             timestamptz '2026-05-01' + i * interval '15 minutes'
      FROM generate_series(1, 200000) AS i`.execute(connection);
    await sql`RESET session_replication_role`.execute(connection);
  });
  await sql`ANALYZE payment_intents, payment_attempts, payment_refunds, payment_ledger_transactions`.execute(db.db);
  const found = await settled(db);
  t.equal(found.length, 96, "the window's 48 captures and 48 refunds (one every 15 minutes)");
  const sent = await sentToPostgres((text) => text.includes('"t"."created_at" >='), () => settled(db));
  t.equal(sent.length, 2, "captures and refunds");
  for (const statement of sent) {
    // The plan Postgres makes with the window's own values (one day of 200 days: it keeps planning
    // per call, as a generic plan assuming a wider window would cost more).
    const plan = await measuredPlan(db, statement);
    const nodes = planNodes(plan);
    t.ok(nodes.some((node) => node["Index Name"] === "payment_ledger_transactions_created"), `seeks the window: ${statement.text.slice(0, 60)}`, { nodes });
    for (const table of ["payment_intents", "payment_attempts", "payment_refunds"]) {
      const read = rowsRead(plan, table);
      t.ok(read <= 96, `${table}: ${read} rows read for the window's 96 transactions, out of 100,000`, { nodes });
    }
  }
});
