/**
 * A dispute notice names the disputed payment by the provider's id: `Disputes.intentOfProviderPayment`
 * finds the intent through payments migration 9 (payment_intents_provider_payment). Without it,
 * every dispute read every payment intent ever created.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlDisputes } from "../../adapters/sql/payments/SqlDisputes.js";
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
