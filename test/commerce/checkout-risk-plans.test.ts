/**
 * The checkout-risk read of a signal runs on every checkout, once per signal (client network,
 * e-mail): `CheckoutRiskRepository.declinesSince` must seek that signal's declines of the window
 * through the partial index of declined rows (commerce migration 29), in time order, and never
 * read the signals of other clients or the undeclined rows. Plans of the statement the repository
 * really sends, with its values: EXPLAIN QUERY PLAN on SQLite, the generic plan on Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlCheckoutRiskRepository } from "../../adapters/sql/commerce/SqlCheckoutRiskRepository.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, planNodes, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { commerceTestModules } from "./support.js";

const signal = "a".repeat(64);
const since = () => new Date(Date.now() - 3_600_000);

t.test("SQLite: a signal's declines are read by seeking the declines index, without a sort", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const { executed } = await capturePrepared(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.declinesSince(signal, since(), 5)), [], "no declines yet"),
  );
  t.equal(executed.size, 1, "the read ran one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH shop_checkout_risk_signals USING (COVERING )?INDEX shop_checkout_risk_declines \(signal=\? AND declined_at>\?\)/.test(detail)),
      `seeks signal and time by index: ${details.join(" | ")}`,
    );
    t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), "no sort: the index gives the time order");
  }
});

t.test("Postgres: a signal's declines are read through the declines index in its generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const sent = await sentToPostgres(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.declinesSince(signal, since(), 5)), [], "no declines yet"),
  );
  t.equal(sent.length, 1, "the read sent one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  const scans = nodes.filter((node) => node["Relation Name"] === "shop_checkout_risk_signals");
  t.ok(scans.length > 0, "the plan reads the table");
  for (const scan of scans) t.equal(scan["Index Name"], "shop_checkout_risk_declines", `by the declines index (${String(scan["Node Type"])})`);
  t.notOk(nodes.some((node) => node["Node Type"] === "Sort"), "no sort: the index gives the time order");
});
