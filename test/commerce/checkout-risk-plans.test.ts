/**
 * The checkout-risk read runs on every checkout, one statement for its signals (account, client
 * network, e-mail), under their locks: `CheckoutRiskRepository.riskSince` must seek each
 * signal's declines of the window through the partial index of declined rows (commerce migration
 * 29), in time order, and its unresolved checkouts through the partial index of undeclined rows
 * (migration 30), never reading the signals of other clients. Plans of the statement the
 * repository really sends, with its values: EXPLAIN QUERY PLAN on SQLite, the generic plan on
 * Postgres.
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
const other = "b".repeat(64);
const nothing = [
  { declines: [], unresolved: 0 },
  { declines: [], unresolved: 0 },
];

t.test("SQLite: the signals' declines and unresolved checkouts are read by seeking their partial indexes, without a sort", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const { executed } = await capturePrepared(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.riskSince([signal, other], since(), 5)), nothing, "nothing yet"),
  );
  t.equal(executed.size, 1, "the read ran one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH shop_checkout_risk_signals USING (COVERING )?INDEX shop_checkout_risk_declines \(signal=\? AND declined_at>\?\)/.test(detail)),
      `seeks the declines by signal and time: ${details.join(" | ")}`,
    );
    t.ok(
      details.some((detail) => /^SEARCH s USING (COVERING )?INDEX shop_checkout_risk_undecided \(signal=\? AND recorded_at>\?\)/.test(detail)),
      `seeks the undeclined checkouts by signal and time: ${details.join(" | ")}`,
    );
    t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), "no sort: the index gives the time order");
  }
});

t.test("Postgres: the signals' declines and unresolved checkouts are read through their partial indexes in its generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const sent = await sentToPostgres(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.riskSince([signal, other], since(), 5)), nothing, "nothing yet"),
  );
  t.equal(sent.length, 1, "the read sent one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  const scans = nodes.filter((node) => node["Relation Name"] === "shop_checkout_risk_signals");
  t.same(
    scans.map((scan) => scan["Index Name"]).sort(),
    ["shop_checkout_risk_declines", "shop_checkout_risk_declines", "shop_checkout_risk_undecided", "shop_checkout_risk_undecided"],
    `each signal's two branches by their partial indexes (${scans.map((scan) => String(scan["Node Type"])).join(", ")})`,
  );
  t.notOk(nodes.some((node) => node["Node Type"] === "Sort"), "no sort: the index gives the time order");
});
