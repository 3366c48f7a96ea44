/**
 * The sandbox provider behind its own HTTP interface (issue 4, "The provider"): test cards are
 * tokenized at the sandbox and never echoed; authorize, capture (partial), refund (partial),
 * void and lookup are keyed by our reference and idempotent; decline answers 402; faults come
 * from the test card or a header (timeout after acting, timeout before acting); webhooks are
 * pushed signed with PROVIDER_WEBHOOK_SECRET, retried on failure, and can be duplicated,
 * reordered or delayed; a settlement CSV is served per day; every route needs the API key; the
 * sandbox also runs as a separate process. The HTTP PaymentProvider maps every answer (and every
 * non-answer) to the port's results without guessing.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Effect, Either } from "effect";
import t from "tap";
import { makeHttpPaymentProvider } from "../../adapters/payments/providers/http/HttpPaymentProvider.js";
import { makeHttpSettlementFiles } from "../../adapters/payments/providers/http/HttpSettlementFiles.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { sandboxSettingsFrom } from "../../adapters/payments/providers/sandbox/sandboxMain.js";
import { makeSandboxWebhookReceiver, webhookSignatureHeader } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { cards, providerWebhookSecret, sandboxApiKey, sandboxCall, startTestSandbox, tokenize } from "./http-provider-support.js";

// Each case starts its own sandbox: they run side by side to keep the file short.
t.jobs = 4;

const today = () => new Date().toISOString().slice(0, 10);
const authorize = (reference: string, paymentMethod: string, extra: Record<string, unknown> = {}) => ({
  reference,
  amount_minor: 1000,
  currency: "EUR",
  payment_method: paymentMethod,
  capture: false,
  ...extra,
});

/** Calls that must get no answer: the client gives up after `ms` (the sandbox never answers them). */
const noAnswer = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return "answered";
  } catch (error) {
    return error instanceof Error ? error.name : "error";
  }
};

/** A webhook receiver on 127.0.0.1 verifying signatures like our endpoint; fails the first `failures` posts with 503. */
const startReceiver = async (t: { teardown: (fn: () => unknown) => void }, failures = 0) => {
  const receiver = makeSandboxWebhookReceiver({ secrets: [providerWebhookSecret] });
  const received: Array<{ id: string; type: string; status: string; verified: boolean }> = [];
  let toFail = failures;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const header = req.headers[webhookSignatureHeader.toLowerCase()];
      const opened = Effect.runSync(Effect.either(receiver.open({ rawBody, signatureHeader: typeof header === "string" ? header : undefined, now: new Date() })));
      if (toFail > 0) {
        toFail--;
        res.writeHead(503).end();
        return;
      }
      const event = JSON.parse(rawBody) as { id: string; type: string; data: { status: string } };
      received.push({ id: event.id, type: event.type, status: event.data.status, verified: Either.isRight(opened) });
      res.writeHead(Either.isRight(opened) ? 200 : 400, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/webhooks/provider`, received };
};

t.test("test cards are tokenized at the sandbox; the card number and CVC are never echoed", async (t) => {
  const sandbox = await startTestSandbox(t);
  const issued = await sandboxCall(sandbox, "/v1/payment_methods", { body: { card: { number: cards.visa, exp_month: 12, exp_year: new Date().getUTCFullYear() + 1, cvc: "987" } } });
  t.equal(issued.status, 200);
  t.match(issued.body, { object: "payment_method", card: { last4: "4242" } });
  t.match(String(issued.body.id), /^pm_[0-9a-f]{24}$/, "an opaque token, not the card");
  t.notOk(issued.text.includes(cards.visa) || issued.text.includes("987"), "neither the number nor the CVC comes back");
  const refused: Array<[Record<string, unknown>, string]> = [
    [{ number: "4111111111111111", exp_month: 1, exp_year: 2099, cvc: "123" }, "unknown_test_card"],
    [{ number: "4242424242424241", exp_month: 1, exp_year: 2099, cvc: "123" }, "invalid_number"],
    [{ number: cards.visa, exp_month: 13, exp_year: 2099, cvc: "123" }, "invalid_expiry"],
    [{ number: cards.visa, exp_month: 1, exp_year: 2001, cvc: "123" }, "expired_card"],
    [{ number: cards.visa, exp_month: 1, exp_year: 2099, cvc: "12" }, "invalid_cvc"],
  ];
  for (const [card, code] of refused) {
    const answer = await sandboxCall(sandbox, "/v1/payment_methods", { body: { card } });
    t.match(answer, { status: 422, body: { error: { code } } }, code);
    t.notOk(answer.text.includes(String(card.number)), `${code}: the number is not echoed`);
  }
  const visa = await tokenize(sandbox, cards.visa);
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_visa", visa, { capture: true }) }), { status: 200, body: { status: "captured", captured_minor: 1000 } });
  const declined = await tokenize(sandbox, cards.declined);
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_declined", declined) }), { status: 402, body: { error: { type: "card_error", decline_code: "card_declined" } } }, "decline is 402 with a decline code");
  const action = await tokenize(sandbox, cards.authenticationRequired);
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_3ds", action) }), { status: 200, body: { status: "requires_action" } });
  t.match(await sandboxCall(sandbox, "/v1/sandbox/payments/ref_3ds/complete_action", { method: "POST" }), { status: 200, body: { status: "authorized" } });
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_fixed", sandboxTokens.visa) }), { status: 200, body: { status: "authorized" } }, "the fixed pm_card_* tokens work too");
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_unknown_token", "pm_never_issued") }), { status: 402, body: { error: { decline_code: "invalid_payment_method" } } });
});

t.test("every operation is keyed by our reference: repeating it, even ten at once, acts once", async (t) => {
  const sandbox = await startTestSandbox(t);
  const token = await tokenize(sandbox, cards.visa);
  const answers = await Promise.all(Array.from({ length: 10 }, () => sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_once", token) })));
  t.ok(answers.every((a) => a.status === 200 && a.body.provider_payment_id === answers[0]?.body.provider_payment_id), "every caller hears the same payment");
  t.equal(sandbox.sandbox.payments().length, 1, "one payment");
  const id = String(answers[0]?.body.provider_payment_id);
  const capture = { reference: "ref_once_capture", provider_payment_id: id, amount_minor: 400, currency: "EUR" };
  const captures = await Promise.all(Array.from({ length: 5 }, () => sandboxCall(sandbox, "/v1/captures", { body: capture })));
  t.ok(captures.every((c) => c.status === 200 && c.body.amount_minor === 400));
  t.match(sandbox.sandbox.payments()[0], { status: "captured", capturedMinor: 400 });
  const refund = { reference: "ref_once_refund", provider_payment_id: id, amount_minor: 100, currency: "EUR" };
  await Promise.all(Array.from({ length: 5 }, () => sandboxCall(sandbox, "/v1/refunds", { body: refund })));
  t.match(sandbox.sandbox.payments()[0], { refundedMinor: 100 }, "refunded once");
});

t.test("partial capture, partial refunds, void and lookup by our reference", async (t) => {
  const sandbox = await startTestSandbox(t);
  const token = await tokenize(sandbox, cards.visa);
  const held = await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_p", token) });
  const id = String(held.body.provider_payment_id);
  const money = (reference: string, amount_minor: number, currency = "EUR") => ({ reference, provider_payment_id: id, amount_minor, currency });
  t.match(await sandboxCall(sandbox, "/v1/captures", { body: money("ref_p_capture", 600) }), { status: 200, body: { amount_minor: 600 } }, "partial capture");
  t.match(await sandboxCall(sandbox, "/v1/refunds", { body: money("ref_p_r1", 200) }), { status: 200 });
  t.match(await sandboxCall(sandbox, "/v1/refunds", { body: money("ref_p_r2", 300) }), { status: 200 });
  t.match(await sandboxCall(sandbox, "/v1/refunds", { body: money("ref_p_r3", 101) }), { status: 409, body: { error: { code: "invalid_refund_amount" } } }, "never more than captured");
  t.match(await sandboxCall(sandbox, "/v1/refunds", { body: money("ref_p_r4", 10, "USD") }), { status: 409 });
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_p"), {
    status: 200,
    body: { reference: "ref_p", provider_payment_id: id, status: "captured", amount_minor: 1000, captured_minor: 600, refunded_minor: 500, currency: "EUR" },
  });
  t.match(await sandboxCall(sandbox, "/v1/voids", { body: { reference: "ref_p_void", provider_payment_id: id } }), { status: 409, body: { error: { code: "payment_not_voidable" } } });
  const other = await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_v", token) });
  t.match(await sandboxCall(sandbox, "/v1/voids", { body: { reference: "ref_v_void", provider_payment_id: other.body.provider_payment_id } }), { status: 200 });
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_v"), { status: 200, body: { status: "voided" } });
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_never_seen"), { status: 404, body: { error: { code: "resource_missing" } } });
  t.match(await sandboxCall(sandbox, "/v1/captures", { body: { reference: "x" } }), { status: 400, body: { error: { code: "parameter_invalid" } } });
});

t.test("timeouts: before acting nothing happens, after acting the payment exists, and the answer never comes", async (t) => {
  const sandbox = await startTestSandbox(t);
  const token = await tokenize(sandbox, cards.visa);
  const quick = { timeoutMs: 300 };
  t.equal(await noAnswer(sandboxCall(sandbox, "/v1/authorizations", { ...quick, body: authorize("ref_tb", token), headers: { "Sandbox-Fault": "timeout_before" } })), "TimeoutError");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_tb"), { status: 404 }, "timeout before acting: the provider never saw it");
  t.equal(await noAnswer(sandboxCall(sandbox, "/v1/authorizations", { ...quick, body: authorize("ref_ta", token), headers: { "Sandbox-Fault": "timeout_after" } })), "TimeoutError");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_ta"), { status: 200, body: { status: "authorized" } }, "timeout after acting: the provider acted");
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_ta", token) }), { status: 200, body: { status: "authorized" } }, "the retry hears what happened");
  const after = await tokenize(sandbox, cards.timeoutAfter);
  t.equal(await noAnswer(sandboxCall(sandbox, "/v1/authorizations", { ...quick, body: authorize("ref_card_ta", after) })), "TimeoutError", "the timeout-after card");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_card_ta"), { status: 200 });
  const before = await tokenize(sandbox, cards.timeoutBefore);
  t.equal(await noAnswer(sandboxCall(sandbox, "/v1/authorizations", { ...quick, body: authorize("ref_card_tb", before) })), "TimeoutError", "the timeout-before card");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_card_tb"), { status: 404 });
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_card_tb", before) }), { status: 200 }, "its retry goes through");
  t.match(await sandboxCall(sandbox, "/v1/sandbox/faults", { body: { operation: "capture", fault: "timeout_after" } }), { status: 204 });
  const id = String(sandbox.sandbox.payments().find((p) => p.reference === "ref_card_tb")?.providerPaymentId);
  t.equal(await noAnswer(sandboxCall(sandbox, "/v1/captures", { ...quick, body: { reference: "ref_c", provider_payment_id: id, amount_minor: 1000, currency: "EUR" } })), "TimeoutError", "an injected capture fault");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_card_tb"), { body: { status: "captured" } });
  t.ok(sandbox.requests().filter((r) => r.status === null).length >= 5, "the sandbox recorded the requests it left unanswered");
  t.match(await sandboxCall(sandbox, "/v1/payments/ref_ta", { headers: { "Sandbox-Fault": "sometimes" } }), { status: 400 }, "an unknown fault is refused");
});

t.test("the settlement file of a day is CSV with injected mismatches", async (t) => {
  const sandbox = await startTestSandbox(t);
  const token = await tokenize(sandbox, cards.visa);
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_s1", token, { capture: true }) });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_s2", token, { capture: true, amount_minor: 2500 }) });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_s3", token, { capture: true }) });
  t.match(await sandboxCall(sandbox, "/v1/sandbox/settlement_faults", { body: { reference: "ref_s2", amount_minor: 2400 } }), { status: 204 });
  t.match(await sandboxCall(sandbox, "/v1/sandbox/settlement_faults", { body: { reference: "ref_s3", omit: true } }), { status: 204 });
  const file = await sandboxCall(sandbox, `/v1/settlements/${today()}`);
  t.equal(file.status, 200);
  t.match(file.headers.get("content-type"), /^text\/csv/);
  const lines = file.text.trim().split("\n");
  t.equal(lines[0], "type,reference,provider_payment_id,amount_minor,currency,status,settled_at");
  t.equal(lines.length, 3, "header, ref_s1 and the misreported ref_s2; ref_s3 omitted");
  t.match(lines.find((l) => l.includes("ref_s2")), /,2400,EUR,captured,/);
  t.notOk(file.text.includes("ref_s3"));
  t.equal((await sandboxCall(sandbox, "/v1/settlements/2020-01-01")).text.trim().split("\n").length, 1, "a quiet day has only the header");
  t.match(await sandboxCall(sandbox, "/v1/settlements/2026-02-30"), { status: 400 });
});

t.test("every route needs the sandbox API key", async (t) => {
  const sandbox = await startTestSandbox(t);
  const routes: Array<[string, string]> = [
    ["POST", "/v1/payment_methods"],
    ["POST", "/v1/authorizations"],
    ["POST", "/v1/captures"],
    ["POST", "/v1/refunds"],
    ["POST", "/v1/voids"],
    ["GET", "/v1/payments/ref"],
    ["GET", `/v1/settlements/${today()}`],
    ["POST", "/v1/sandbox/settlement_faults"],
    ["POST", "/v1/sandbox/faults"],
    ["POST", "/v1/sandbox/webhook_faults"],
    ["POST", "/v1/sandbox/payments/ref/complete_action"],
  ];
  for (const [method, path] of routes) {
    for (const key of [null, "sk_sandbox_wrong_key_0123456789ab", `${sandboxApiKey}x`, ""]) {
      const answer = await sandboxCall(sandbox, path, { method, key, ...(method === "POST" ? { body: {} } : {}) });
      t.match(answer, { status: 401, body: { error: { type: "authentication_error" } } }, `${method} ${path} with ${key === null ? "no key" : "a wrong key"}`);
    }
  }
  t.equal(sandbox.sandbox.calls.length, 0, "nothing reached the provider");
});

t.test("webhooks are pushed signed with PROVIDER_WEBHOOK_SECRET and retried until accepted", async (t) => {
  const receiver = await startReceiver(t, 2);
  const sandbox = await startTestSandbox(t, { webhooks: { url: receiver.url, secrets: [providerWebhookSecret] } });
  const token = await tokenize(sandbox, cards.visa);
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_w", token, { capture: true }) });
  await sandbox.webhooks.idle();
  t.match(receiver.received, [{ type: "payment.captured", status: "captured", verified: true }], "delivered once, with a valid signature");
  t.same(sandbox.webhooks.deliveries().map((d) => d.status), [503, 503, 200], "two failures retried with backoff, then accepted");
  t.equal(new Set(sandbox.webhooks.deliveries().map((d) => d.eventId)).size, 1, "every retry carries the same event");
});

t.test("webhook delivery gives up after its bound when the endpoint keeps failing", async (t) => {
  const receiver = await startReceiver(t, 100);
  const sandbox = await startTestSandbox(t, { webhooks: { url: receiver.url, secrets: [providerWebhookSecret] }, webhookDelivery: { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 20 } });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_bound", sandboxTokens.visa) });
  await sandbox.webhooks.idle();
  t.same(sandbox.webhooks.deliveries().map((d) => d.status), [503, 503, 503]);
});

t.test("webhook faults: duplicate, out of order and delayed, by header or injection", async (t) => {
  const receiver = await startReceiver(t);
  const sandbox = await startTestSandbox(t, { webhooks: { url: receiver.url, secrets: [providerWebhookSecret] } });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_dup", sandboxTokens.visa, { capture: true }), headers: { "Sandbox-Webhook-Fault": "duplicate" } });
  await sandbox.webhooks.idle();
  t.equal(receiver.received.length, 2, "duplicate: the same event twice");
  t.equal(receiver.received[0]?.id, receiver.received[1]?.id);

  receiver.received.length = 0;
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_ooo", sandboxTokens.authenticationRequired), headers: { "Sandbox-Webhook-Fault": "out_of_order" } });
  await sandbox.webhooks.idle();
  t.equal(receiver.received.length, 0, "out_of_order: held until the next event about the payment");
  t.equal(sandbox.webhooks.held().length, 1);
  await sandboxCall(sandbox, "/v1/sandbox/payments/ref_ooo/complete_action", { method: "POST" });
  await sandbox.webhooks.idle();
  t.same(receiver.received.map((r) => r.status), ["authorized", "requires_action"], "the newer event arrives first");

  receiver.received.length = 0;
  t.match(await sandboxCall(sandbox, "/v1/sandbox/webhook_faults", { body: { reference: "ref_delay", fault: "delay=50" } }), { status: 204 });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_delay", sandboxTokens.visa) });
  await sandbox.webhooks.idle();
  t.match(receiver.received, [{ status: "authorized", verified: true }], "delayed: delivered after the delay, still signed validly");
  t.match(sandbox.webhooks.deliveries().at(-1), { fault: "delay", status: 200 });
  t.match(await sandboxCall(sandbox, "/v1/sandbox/webhook_faults", { body: { reference: "x", fault: "delay=99999999999" } }), { status: 400 });
  t.match(await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_bad_fault", sandboxTokens.visa), headers: { "Sandbox-Webhook-Fault": "lost" } }), { status: 400 });
  t.equal(sandbox.sandbox.payments().filter((p) => p.reference === "ref_bad_fault").length, 0, "a refused request does not act");
});

t.test("close() stops pending webhook timers: a delayed event is never sent afterwards", async (t) => {
  const receiver = await startReceiver(t);
  const sandbox = await startTestSandbox(t, { webhooks: { url: receiver.url, secrets: [providerWebhookSecret] } });
  await sandboxCall(sandbox, "/v1/authorizations", { body: authorize("ref_parked", sandboxTokens.visa), headers: { "Sandbox-Webhook-Fault": "delay=600000" } });
  await sandbox.close();
  await sandbox.webhooks.idle();
  t.equal(receiver.received.length, 0);
  t.equal(sandbox.webhooks.deliveries().length, 0);
});

t.test("the HTTP provider maps answers without guessing and never reveals the key or the token", async (t) => {
  const sandbox = await startTestSandbox(t);
  const provider = makeHttpPaymentProvider({ baseUrl: sandbox.url, apiKey: sandboxApiKey, timeoutMs: 2_000 });
  const eur = (amount_minor: number) => ({ amount_minor, currency: "EUR" });
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect));
  const token = await tokenize(sandbox, cards.visa);
  const held = await run(provider.authorize({ reference: "h_1", amount: eur(900), paymentMethod: token, capture: false }));
  t.match(held, { _tag: "Right", right: { _tag: "Authorized", capturedMinor: 0 } });
  const id = Either.isRight(held) && held.right._tag === "Authorized" ? held.right.providerPaymentId : "";
  t.match(await run(provider.authorize({ reference: "h_2", amount: eur(900), paymentMethod: await tokenize(sandbox, cards.declined), capture: true })), { _tag: "Right", right: { _tag: "Declined", declineCode: "card_declined" } }, "402 is Declined");
  t.match(await run(provider.authorize({ reference: "h_3", amount: eur(900), paymentMethod: sandboxTokens.authenticationRequired, capture: true })), { _tag: "Right", right: { _tag: "RequiresAction" } });
  t.match(await run(provider.capture({ reference: "h_1_c", providerPaymentId: id, amount: eur(500) })), { _tag: "Right", right: { _tag: "Done", amountMinor: 500 } });
  t.match(await run(provider.capture({ reference: "h_1_c2", providerPaymentId: id, amount: eur(500) })), { _tag: "Right", right: { _tag: "Rejected", reason: "payment_not_capturable" } }, "409 is Rejected");
  t.match(await run(provider.refund({ reference: "h_1_r", providerPaymentId: id, amount: eur(200) })), { _tag: "Right", right: { _tag: "Done", amountMinor: 200 } });
  t.match(await run(provider.void({ reference: "h_1_v", providerPaymentId: id })), { _tag: "Right", right: { _tag: "Rejected" } });
  t.match(await run(provider.lookup("h_1")), { _tag: "Right", right: { reference: "h_1", status: "captured", capturedMinor: 500, refundedMinor: 200, amount: eur(900) } });
  t.match(await run(provider.lookup("nobody")), { _tag: "Right", right: null }, "404 is null");
  const timedOut = await run(provider.authorize({ reference: "h_4", amount: eur(900), paymentMethod: await tokenize(sandbox, cards.timeoutAfter), capture: true }));
  t.match(timedOut, { _tag: "Left", left: { _tag: "ProviderOutcomeUnknown", operation: "authorize" } }, "a timeout is an unknown outcome");
  t.match(await run(provider.lookup("h_4")), { _tag: "Right", right: { status: "captured" } }, "which the lookup resolves");
  const files = makeHttpSettlementFiles({ baseUrl: sandbox.url, apiKey: sandboxApiKey });
  t.match(await run(files.fetch(today())), { _tag: "Right", right: /^type,reference,provider_payment_id/ });
  t.match(await run(makeHttpSettlementFiles({ baseUrl: sandbox.url, apiKey: "sk_wrong_key_0123456789" }).fetch(today())), { _tag: "Left", left: { _tag: "ProviderOutcomeUnknown" } });

  // A provider that is down, that fails, or that answers garbage: unknown, never Declined or Rejected.
  const broken = createServer((req, res) => {
    if (req.url === "/v1/payments/garbage") res.writeHead(200, { "Content-Type": "application/json" }).end("{\"status\":\"maybe\"}");
    else res.writeHead(req.url === "/v1/captures" ? 503 : 500).end();
  });
  await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
  const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  t.teardown(() => new Promise<void>((resolve) => broken.close(() => resolve())));
  const failing = makeHttpPaymentProvider({ baseUrl: brokenUrl, apiKey: sandboxApiKey, timeoutMs: 2_000 });
  const outcomes: Array<Either.Either<unknown, unknown>> = [
    await run(failing.authorize({ reference: "f_1", amount: eur(1), paymentMethod: token, capture: true })),
    await run(failing.capture({ reference: "f_2", providerPaymentId: "p", amount: eur(1) })),
    await run(failing.lookup("garbage")),
  ];
  await new Promise<void>((resolve) => broken.close(() => resolve()));
  outcomes.push(await run(failing.refund({ reference: "f_3", providerPaymentId: "p", amount: eur(1) })));
  for (const outcome of outcomes) t.match(outcome, { _tag: "Left", left: { _tag: "ProviderOutcomeUnknown" } });
  const everything = JSON.stringify([timedOut, ...outcomes].map((o) => (Either.isLeft(o) ? { ...(o.left as object), message: (o.left as Error).message } : o)));
  t.notOk(everything.includes(sandboxApiKey), "no API key in any error");
  t.notOk(everything.includes(token) || everything.includes("pm_"), "no payment token in any error");
});

t.test("the sandbox runs as a separate process from flags and environment", async (t) => {
  const main = fileURLToPath(new URL("../../adapters/payments/providers/sandbox/sandboxMain.js", import.meta.url));
  const child = spawn(process.execPath, [main, "--port", "0"], {
    env: { ...process.env, SANDBOX_API_KEY: sandboxApiKey, PROVIDER_WEBHOOK_SECRET: providerWebhookSecret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
  let out = "";
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes("\n")) resolve(out.split("\n")[0] as string);
    });
    child.once("exit", () => reject(new Error("the sandbox process exited before listening")));
  });
  const { sandbox: url } = JSON.parse(line) as { sandbox: string };
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.notOk(out.includes(sandboxApiKey) || out.includes(providerWebhookSecret), "no secret printed");
  const token = await tokenize({ url }, cards.visa);
  t.match(await sandboxCall({ url }, "/v1/authorizations", { body: authorize("ref_process", token) }), { status: 200, body: { status: "authorized" } });
  t.match(await sandboxCall({ url }, "/v1/payments/ref_process", { key: null }), { status: 401 });
  child.kill("SIGTERM");
  t.equal(await exited, 0, "SIGTERM stops it cleanly");
  t.throws(() => sandboxSettingsFrom(["--port", "0"], { SANDBOX_API_KEY: "" }), /SANDBOX_API_KEY/, "no API key: refuses to start");
  t.throws(() => sandboxSettingsFrom(["--webhook-url", "http://127.0.0.1:1/v1/webhooks/provider"], { SANDBOX_API_KEY: sandboxApiKey }), /PROVIDER_WEBHOOK_SECRET/, "pushing webhooks needs the secret");
  t.match(sandboxSettingsFrom(["--port", "4010", "--webhook-url", "http://127.0.0.1:3000/v1/webhooks/provider"], { SANDBOX_API_KEY: sandboxApiKey, PROVIDER_WEBHOOK_SECRET: "a, b" }), {
    port: 4010,
    host: "127.0.0.1",
    webhookUrl: "http://127.0.0.1:3000/v1/webhooks/provider",
    webhookSecrets: ["a", "b"],
  });
});
