/**
 * The readiness probe's worker check reads only the pending outbox rows on Postgres too (a load
 * balancer asks every few seconds; with the status bound, its generic plan read the whole outbox). The metrics scrape's state gauges
 * (adapters/observability/StateCollectors.ts) read only the rows they count. Each count either seeks an index on its status or walks a partial index that holds
 * only the rows in that state (payments migration 10, files migration 5); none reads a table
 * that keeps every row ever written. Before, the scrape read every merchant webhook delivery,
 * payment attempt, reconciliation exception and upload session on every call.
 */
import t from "tap";
import { workerCheck } from "../../adapters/observability/Readiness.js";
import { databaseState } from "../../adapters/observability/StateCollectors.js";
import { commerceTestModules } from "../commerce/support.js";
import { deliveryTestModules } from "../delivery/support.js";
import { filesTestModules } from "../files/support.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, planNodes, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";

// Every module's tables, each once.
const modules = [...new Map([...filesTestModules, ...commerceTestModules, ...deliveryTestModules].map((module) => [module.name, module])).values()];
const everything = { payments: true, files: true, commerce: true, delivery: true } as const;

// The partial indexes that hold only the rows of one state: walking one reads just those rows.
const partialByState = [
  "payment_attempts_unknown",
  "payment_reconciliation_exceptions_open",
  "payment_webhook_deliveries_pending",
  "payment_webhook_deliveries_dead",
  "fs_upload_sessions_open_only",
  // Also partial on open sessions (files migration 19, by workspace and creator): as good for the count.
  "fs_upload_sessions_open_by_creator",
];
const walksOnlyItsRows = (detail: string): boolean =>
  !detail.startsWith("SCAN ") || partialByState.some((index) => new RegExp(`^SCAN \\w+ USING (COVERING )?INDEX ${index}\\b`).test(detail));

t.test("SQLite: every state count seeks its status or walks a partial index of that state", async (t) => {
  const db = await openTestDatabase("sqlite", t, modules);
  const { result, executed } = await capturePrepared(() => true, () => databaseState(db, everything)());
  t.ok(result.some((reading) => reading.metric === "domainkit_webhook_deliveries" && reading.labels?.["outcome"] === "dead"), "the payments gauges were read");
  t.notOk(result.some((reading) => reading.labels?.["outcome"] === "succeeded"), "succeeded deliveries are not counted");
  t.ok(executed.size >= 10, `every gauge's statement was captured (${executed.size})`);
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.every(walksOnlyItsRows), `reads only the rows it counts: ${text.slice(0, 90)}`, { details });
  }
});

t.test("Postgres: the counts on partial indexes keep them in their cached generic plans", async (t) => {
  const db = await openTestDatabase("postgres", t, modules);
  const sent = await sentToPostgres(
    (text) => /from "(payment_attempts|payment_reconciliation_exceptions|payment_webhook_deliveries|fs_upload_sessions)"/.test(text),
    () => databaseState(db, everything)(),
  );
  t.equal(sent.length, 5, "one count per partial index");
  for (const statement of sent) {
    const nodes = planNodes(await genericPlan(db, statement));
    t.ok(
      nodes.some((node) => partialByState.includes(String(node["Index Name"]))),
      `uses its partial index: ${statement.text.slice(0, 90)}`,
      { nodes },
    );
  }
});

t.test("Postgres: the readiness worker check reads only pending outbox rows, through a partial index, in its generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  const sent = await sentToPostgres((text) => text.includes('from "outbox"'), () => workerCheck(db).check());
  t.equal(sent.length, 1, "one read of the outbox");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  // Both partial indexes of the outbox on Postgres hold only its pending rows.
  t.ok(nodes.some((node) => ["outbox_due", "outbox_pending_seq"].includes(String(node["Index Name"]))), "uses an index of pending rows", { nodes });
  t.notOk(nodes.some((node) => node["Node Type"] === "Seq Scan"), "no sequential scan", { nodes });
});
