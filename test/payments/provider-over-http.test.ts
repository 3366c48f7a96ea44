/**
 * The payment module against the sandbox provider over HTTP, SQLite and Postgres: our reference
 * server's PaymentProvider and settlement files are the HTTP adapters pointed at the sandbox
 * server, and the sandbox pushes signed webhooks to our /v1/webhooks/provider. Over HTTP end to
 * end: a visa confirm succeeds and its webhook is ingested once; a declined card is 402 at the
 * sandbox and the intent is confirmable again; a timeout after acting leaves the intent
 * processing until the reconcile job resolves it by lookup (spec rule 3); a timeout before
 * acting is retried under the same provider reference and charges once (rules 1, 2); duplicate,
 * out-of-order and delayed webhooks change state once and never backwards (rule 4); the
 * settlement file fetched over HTTP opens each injected mismatch once (rule 12).
 */
import t from "tap";
import { runningJob } from "../worker/fixtures.js";
import { reconcileSettlementJobKind } from "../../core/payments/SettlementReconciliation.js";
import { reconcileIntentJob, reconcileSettlementJob } from "../../core/payments/Jobs.js";
import { dialects, forEachDialect, type Dialect, type TapTest } from "../support/databases.js";
import { attemptReference, cards, sandboxApiKey, sandboxCall, startWiredServers } from "./http-provider-support.js";
import { freshKey } from "./support.js";

const bothDialects = (t: TapTest, name: string, fn: (t: TapTest, dialect: Dialect) => Promise<void>) => {
  t.jobs = dialects.length;
  return forEachDialect(t, name, (sub, db) => fn(sub, db.dialect));
};

// Each case starts its own servers and databases: they run side by side to keep the file short.
t.jobs = 4;

const today = () => new Date().toISOString().slice(0, 10);

t.test("a visa confirm succeeds over HTTP and the pushed webhook is ingested once", (t) =>
  bothDialects(t, "visa", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 1500, currency: "EUR" });
    const token = await s.tokenize(cards.visa);
    const confirmed = await s.confirm(id, token);
    t.match(confirmed, { status: 200, body: { status: "succeeded", amount_captured_minor: 1500 } });
    await s.sandbox.webhooks.idle();
    const deliveries = s.sandbox.webhooks.deliveries();
    t.equal(deliveries.length, 1, "one signed webhook pushed");
    t.match(deliveries[0], { type: "payment.captured", status: 200 });
    const stored = await s.db.selectFrom("payment_provider_events").select("provider_event_id").execute();
    t.same(stored.map((e) => e.provider_event_id), [deliveries[0]?.eventId], "stored once under the provider's event id");
    t.equal(await s.count("payment_ledger_entries"), 2, "posted once, by whichever of answer and webhook came first");
    t.match(s.sandbox.sandbox.payments(), [{ reference: attemptReference(id), status: "captured", capturedMinor: 1500 }]);
    t.notOk(s.logText().includes(token), "the payment token is not logged");
    t.notOk(s.logText().includes(sandboxApiKey), "the provider API key is not logged");
  }),
);

t.test("a declined card answers 402 at the sandbox and the intent takes another card", (t) =>
  bothDialects(t, "declined", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 700, currency: "USD" });
    const declined = await s.confirm(id, await s.tokenize(cards.declined));
    t.match(declined, { status: 402, body: { code: "card_declined" } });
    t.ok(s.sandbox.requests().some((r) => r.path === "/v1/authorizations" && r.status === 402), "402 at the sandbox");
    t.match(await s.read(id), { status: "requires_payment_method" });
    t.match(await s.confirm(id, await s.tokenize(cards.visa)), { status: 200, body: { status: "succeeded", amount_captured_minor: 700 } });
    await s.sandbox.webhooks.idle();
    t.match(await s.read(id), { status: "succeeded" }, "the late decline webhook of attempt 1 changes nothing");
    t.equal(await s.count("payment_provider_events"), 2);
    t.equal(await s.count("payment_ledger_entries"), 2);
  }),
);

t.test("a timeout after acting leaves the intent processing until the reconcile job resolves it from the sandbox", (t) =>
  bothDialects(t, "timeout after", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 1200, currency: "EUR" });
    // Park the webhook so the reconciliation job, not the webhook, is what resolves the intent.
    await sandboxCall(s.sandbox, "/v1/sandbox/webhook_faults", { body: { reference: attemptReference(id), fault: "delay=600000" } });
    const confirmed = await s.confirm(id, await s.tokenize(cards.timeoutAfter));
    t.match(confirmed, { status: 202, body: { status: "processing" } }, "never guessed");
    t.match(s.sandbox.sandbox.payments(), [{ status: "captured" }], "the sandbox did charge");
    t.equal(await s.count("payment_ledger_entries"), 0);
    const pass = await s.runJobs([reconcileIntentJob], Date.now() + 60_000);
    t.equal(pass.claimed, 1, "the durable reconcile job ran");
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 1200 });
    t.ok(s.sandbox.requests().some((r) => r.path === `/v1/payments/${attemptReference(id)}` && r.status === 200), "resolved by lookup under our reference");
    t.equal(s.sandbox.sandbox.calls.filter((c) => c.operation === "authorize").length, 1, "the charge was never re-sent");
    s.sandbox.webhooks.flush();
    await s.sandbox.webhooks.idle();
    t.match(s.sandbox.webhooks.deliveries(), [{ status: 200, fault: "delay" }]);
    t.equal(await s.count("payment_ledger_entries"), 2, "the late webhook posts nothing twice");
  }),
);

t.test("a timeout before acting: the same Idempotency-Key replays, continuing the confirm charges exactly once", (t) =>
  bothDialects(t, "timeout before", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 900, currency: "GBP" });
    const key = freshKey();
    const token = await s.tokenize(cards.timeoutBefore);
    const first = await s.confirm(id, token, key);
    t.match(first, { status: 202, body: { status: "processing" } });
    t.equal(s.sandbox.sandbox.payments().length, 0, "the sandbox did nothing");
    const replay = await s.confirm(id, token, key);
    t.match(replay, { status: 202, body: first.body }, "the same key and request replay the stored answer");
    const authorizations = () => s.sandbox.sandbox.calls.filter((c) => c.operation === "authorize").length;
    t.equal(authorizations(), 1, "no replay reached the provider");
    // Five clients continue the confirmation at once: each re-sends the same provider reference.
    const continued = await Promise.all(Array.from({ length: 5 }, () => s.confirm(id, undefined)));
    t.ok(continued.every((c) => c.status === 200 || c.status === 409), `answers ${continued.map((c) => c.status).join(",")}`);
    t.ok(continued.some((c) => c.status === 200 && c.body.status === "succeeded"));
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 900 });
    t.equal(s.sandbox.sandbox.payments().length, 1, "exactly one payment at the sandbox");
    t.ok(s.sandbox.sandbox.calls.filter((c) => c.operation === "authorize").every((c) => c.reference === attemptReference(id)), "always the same reference");
    await s.sandbox.webhooks.idle();
    t.equal(await s.count("payment_ledger_entries"), 2, "posted once");
  }),
);

t.test("a duplicated webhook is stored once", (t) =>
  bothDialects(t, "duplicate", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 500, currency: "EUR" });
    await sandboxCall(s.sandbox, "/v1/sandbox/webhook_faults", { body: { reference: attemptReference(id), fault: "duplicate" } });
    t.match(await s.confirm(id, await s.tokenize(cards.visa)), { status: 200 });
    await s.sandbox.webhooks.idle();
    const deliveries = s.sandbox.webhooks.deliveries();
    t.equal(deliveries.length, 2, "the same event sent twice");
    t.equal(deliveries[0]?.eventId, deliveries[1]?.eventId);
    t.ok(deliveries.every((d) => d.status === 200), "both acknowledged");
    t.match(JSON.parse(deliveries[1]?.body ?? "{}"), { duplicate: true });
    t.equal(await s.count("payment_provider_events"), 1, "one inbox row");
    t.equal(await s.count("payment_ledger_entries"), 2);
  }),
);

t.test("out-of-order webhooks never move an intent backwards", (t) =>
  bothDialects(t, "out of order", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 4200, currency: "EUR" });
    await sandboxCall(s.sandbox, "/v1/sandbox/webhook_faults", { body: { reference: attemptReference(id), fault: "out_of_order" } });
    t.match(await s.confirm(id, await s.tokenize(cards.authenticationRequired)), { status: 200, body: { status: "requires_action" } });
    await s.sandbox.webhooks.idle();
    t.equal(s.sandbox.webhooks.held().length, 1, "the requires_action event is held back");
    t.match(await sandboxCall(s.sandbox, `/v1/sandbox/payments/${attemptReference(id)}/complete_action`, { method: "POST" }), { status: 200 });
    await s.sandbox.webhooks.idle();
    const deliveries = s.sandbox.webhooks.deliveries();
    t.same(deliveries.map((d) => d.type), ["payment.captured", "payment.requires_action"], "newer first, older after it");
    t.match(JSON.parse(deliveries[0]?.body ?? "{}"), { status: "processed" }, "the capture applies");
    t.match(JSON.parse(deliveries[1]?.body ?? "{}"), { status: "ignored" }, "the older event is stored, not applied");
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 4200 }, "no way back to requires_action");
    t.equal(await s.count("payment_provider_events"), 2);
    t.equal(await s.count("payment_ledger_entries"), 2);
  }),
);

t.test("a delayed webhook still applies", (t) =>
  bothDialects(t, "delayed", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const id = await s.createIntent({ amount_minor: 3100, currency: "EUR" });
    t.match(await s.confirm(id, await s.tokenize(cards.authenticationRequired)), { status: 200, body: { status: "requires_action" } });
    const completed = await sandboxCall(s.sandbox, `/v1/sandbox/payments/${attemptReference(id)}/complete_action`, {
      method: "POST",
      headers: { "Sandbox-Webhook-Fault": "delay=200" },
    });
    t.equal(completed.status, 200);
    await s.sandbox.webhooks.idle();
    const captured = s.sandbox.webhooks.deliveries().filter((d) => d.type === "payment.captured");
    t.match(captured, [{ fault: "delay", status: 200 }]);
    t.match(JSON.parse(captured[0]?.body ?? "{}"), { status: "processed" });
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 3100 });
    t.equal(await s.count("payment_ledger_entries"), 2);
  }),
);

t.test("the settlement file fetched over HTTP opens each injected mismatch once", (t) =>
  bothDialects(t, "settlement", async (t, dialect) => {
    const s = await startWiredServers(t, dialect);
    const token = await s.tokenize(cards.visa);
    const pay = async (amount_minor: number) => {
      const id = await s.createIntent({ amount_minor, currency: "EUR" });
      t.match(await s.confirm(id, token), { status: 200 });
      return attemptReference(id);
    };
    await pay(1000);
    const misreported = await pay(2000);
    const omitted = await pay(3000);
    const recoloured = await pay(4000);
    await sandboxCall(s.sandbox, "/v1/sandbox/settlement_faults", { body: { reference: misreported, amount_minor: 1999 } });
    await sandboxCall(s.sandbox, "/v1/sandbox/settlement_faults", { body: { reference: omitted, omit: true } });
    await sandboxCall(s.sandbox, "/v1/sandbox/settlement_faults", { body: { reference: recoloured, currency: "USD" } });
    const job = runningJob({ kind: reconcileSettlementJobKind, key: today(), payload: { day: today() } });
    const runOnce = () => s.server.core.runtime.runPromise(reconcileSettlementJob.run(job));
    await Promise.all([runOnce(), runOnce()]);
    await runOnce();
    t.ok(s.sandbox.requests().filter((r) => r.path === `/v1/settlements/${today()}` && r.status === 200).length === 3, "fetched from the sandbox over HTTP each run");
    const rows = await s.db.selectFrom("payment_reconciliation_exceptions").select(["provider_object", "kind"]).orderBy("kind").execute();
    t.same(
      rows.map((r) => `${String(r.kind)}:${String(r.provider_object)}`).sort(),
      [`amount:${misreported}`, `currency:${recoloured}`, `missing:${omitted}`].sort(),
      "one exception per injected mismatch, even after three runs (two racing)",
    );
  }),
);
