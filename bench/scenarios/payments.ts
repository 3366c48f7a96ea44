/**
 * Payments under load. `payments-confirm`: POST /v1/payment-intents/:id/confirm with
 * pm_card_visa on intents created during setup, each request a distinct intent and
 * Idempotency-Key (idempotency reserve, intent lock, attempt row, sandbox provider call outside
 * the transaction, capture with its balanced ledger posting, outbox event, idempotency
 * complete). `payments-create`: POST /v1/payment-intents, each request its own key. Together
 * they give create+confirm per second (1 / (1/create + 1/confirm)). The raw baseline of
 * `payments-confirm` runs every statement a confirm runs through the stack, in the same
 * transactions, on the bare driver (until the seventh session it was the ledger posting alone,
 * 4 of those 19 statements), so the ratio is what the stack costs over the confirm's own SQL.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { benchMerchant, rawConfirm, rawConfirmFixture } from "./paymentsFixtures.js";
import { inOrder, rawRunner } from "../RawStatements.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/**
 * Intents per HTTP connection, enough for a 5 s run and its 5 s warm-up at about 1,300 confirms
 * per second (SQLite reaches ~1,100); past them the plan wraps around and repeated confirms are
 * idempotent replays (reported 2xx), so raise this for long runs.
 */
const intentsPerConnection = 1_300;

/** Confirming intents with the sandbox's succeeding card, against the bare ledger posting. */
export const paymentsConfirm: Scenario = {
  name: "payments-confirm",
  description: "POST /v1/payment-intents/:id/confirm (pm_card_visa, automatic capture): idempotency, provider call, capture + ledger posting",
  setup: async (target, { connections }) => {
    const runtime = target.server.core.runtime;
    const { merchant, principal } = await benchMerchant(runtime);
    const ids = await runtime.runPromise(
      Effect.forEach(
        Array.from({ length: connections * intentsPerConnection }),
        () => Effect.map(createIntent(principal, { amountMinor: 2500, currency: "EUR" }), (intent) => intent.id),
        { concurrency: target.dialect === "sqlite" ? 1 : 10 },
      ),
    );
    const body = JSON.stringify({ payment_method: "pm_card_visa" });
    const requests: BenchRequest[] = ids.map((id) => ({
      method: "POST",
      path: `/v1/payment-intents/${id}/confirm`,
      headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json", "idempotency-key": `bench-${id}` },
      body,
    }));
    return { requests, consumable: true };
  },
  rawBaseline: async (db, bounds) => {
    const label = "every statement of a confirm: key lookup, idempotency reservation, step 1 (intent lock, attempt, intent, audit), step 3 (intent lock, attempt read and update, intent, ledger posting, outbox, audit), idempotency answer";
    const toDb = (at: Date): unknown => (db.dialect === "sqlite" ? at.toISOString() : at);
    // One fresh intent per confirm, made before the loop: several times the confirms this machine
    // runs in the loop's time (~2,500/s on SQLite, ~850/s on Postgres), plus the warm-up.
    const perMs = db.dialect === "sqlite" ? 10 : 4;
    const fixture = await rawConfirmFixture(db, Math.min(bounds.maxOps, Math.ceil(bounds.durationMs * perMs)) + 200, toDb);
    const runner = rawRunner(db);
    const measured = await measureOps((sequence) => {
      const confirm = rawConfirm(db.dialect, fixture, sequence, toDb);
      return inOrder([
        () => runner.autocommit(confirm.before),
        () => runner.inTransaction(confirm.step1),
        () => runner.inTransaction(confirm.step3),
        () => runner.autocommit(confirm.after),
      ]);
    }, bounds);
    return { ...measured, label: `${db.dialect === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"}/COMMIT: ${label}` };
  },
};

/** Creates per HTTP connection: 50,000 with 10 connections, a 5 s run and its warm-up at 5,000 a second. */
const createsPerConnection = 5_000;

/** Creating intents (each request its own Idempotency-Key, so none is a replay). */
export const paymentsCreate: Scenario = {
  name: "payments-create",
  description: "POST /v1/payment-intents: idempotency reserve, intent + audit (+ client secret) insert, idempotency complete",
  setup: async (target, { connections }) => {
    const { merchant } = await benchMerchant(target.server.core.runtime);
    const body = JSON.stringify({ amount_minor: 2500, currency: "EUR" });
    const requests: BenchRequest[] = Array.from({ length: connections * createsPerConnection }, () => ({
      method: "POST",
      path: "/v1/payment-intents",
      headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json", "idempotency-key": `bench-${randomUUID()}` },
      body,
    }));
    return { requests, consumable: true };
  },
};
