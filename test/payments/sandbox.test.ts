/**
 * The sandbox provider behaves like a real one: test tokens decide the outcome, every operation
 * is deduplicated by our reference (a retry never charges, captures or refunds twice), timeouts
 * happen after or before acting, and capture and refund are partial and bounded.
 */
import { Effect, Either } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";

const eur = (amount_minor: number) => ({ amount_minor, currency: "EUR" });
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect));

t.test("the test tokens succeed, decline or need action", async (t) => {
  const sandbox = makeSandboxProvider();
  t.match(await run(sandbox.authorize({ reference: "r1", amount: eur(100), paymentMethod: sandboxTokens.visa, capture: true })), Either.right({ _tag: "Authorized", capturedMinor: 100 }));
  t.match(await run(sandbox.authorize({ reference: "r2", amount: eur(100), paymentMethod: sandboxTokens.declined, capture: true })), Either.right({ _tag: "Declined", declineCode: "card_declined" }));
  t.match(await run(sandbox.authorize({ reference: "r3", amount: eur(100), paymentMethod: sandboxTokens.authenticationRequired, capture: true })), Either.right({ _tag: "RequiresAction" }));
  t.match(await run(sandbox.authorize({ reference: "r4", amount: eur(100), paymentMethod: "not-a-token", capture: true })), Either.right({ _tag: "Declined", declineCode: "invalid_payment_method" }));
});

t.test("the same reference never charges twice", async (t) => {
  const sandbox = makeSandboxProvider();
  const first = await run(sandbox.authorize({ reference: "same", amount: eur(100), paymentMethod: sandboxTokens.visa, capture: true }));
  const second = await run(sandbox.authorize({ reference: "same", amount: eur(100), paymentMethod: sandboxTokens.visa, capture: true }));
  t.same(second, first, "the retry answers what was done");
  t.equal(sandbox.payments().length, 1);
});

t.test("timeout after acting charges and loses the answer; timeout before acting does nothing", async (t) => {
  const sandbox = makeSandboxProvider();
  const after = await run(sandbox.authorize({ reference: "a", amount: eur(100), paymentMethod: sandboxTokens.timeoutAfter, capture: true }));
  t.match(after, Either.left({ _tag: "ProviderOutcomeUnknown" }));
  t.match(await run(sandbox.lookup("a")), Either.right({ status: "captured", capturedMinor: 100 }), "lookup by our reference finds the charge");
  const before = await run(sandbox.authorize({ reference: "b", amount: eur(100), paymentMethod: sandboxTokens.timeoutBefore, capture: true }));
  t.match(before, Either.left({ _tag: "ProviderOutcomeUnknown" }));
  t.same(await run(sandbox.lookup("b")), Either.right(null), "nothing happened");
  t.equal(sandbox.payments().length, 1);
});

t.test("capture and refund are partial, bounded and deduplicated by reference; void releases an authorization", async (t) => {
  const sandbox = makeSandboxProvider();
  const auth = await run(sandbox.authorize({ reference: "m", amount: eur(1000), paymentMethod: sandboxTokens.visa, capture: false }));
  const providerPaymentId = Either.isRight(auth) && auth.right._tag === "Authorized" ? auth.right.providerPaymentId : "";
  t.match(await run(sandbox.capture({ reference: "m-cap", providerPaymentId, amount: eur(1001) })), Either.right({ _tag: "Rejected" }));
  t.match(await run(sandbox.capture({ reference: "m-cap2", providerPaymentId, amount: eur(700) })), Either.right({ _tag: "Done", amountMinor: 700 }));
  t.match(await run(sandbox.capture({ reference: "m-cap2", providerPaymentId, amount: eur(700) })), Either.right({ _tag: "Done", amountMinor: 700 }), "replayed");
  t.match(await run(sandbox.refund({ reference: "m-re1", providerPaymentId, amount: eur(500) })), Either.right({ _tag: "Done" }));
  t.match(await run(sandbox.refund({ reference: "m-re1", providerPaymentId, amount: eur(500) })), Either.right({ _tag: "Done" }), "replayed, not refunded again");
  t.match(await run(sandbox.refund({ reference: "m-re2", providerPaymentId, amount: eur(201) })), Either.right({ _tag: "Rejected" }), "bounded by the captured amount");
  t.equal(sandbox.payments()[0]?.refundedMinor, 500);
  const held = await run(sandbox.authorize({ reference: "v", amount: eur(10), paymentMethod: sandboxTokens.visa, capture: false }));
  const heldId = Either.isRight(held) && held.right._tag === "Authorized" ? held.right.providerPaymentId : "";
  t.match(await run(sandbox.void({ reference: "v-void", providerPaymentId: heldId })), Either.right({ _tag: "Done" }));
  t.match(await run(sandbox.lookup("v")), Either.right({ status: "voided" }));
});

t.test("an injected fault times out one call, after or before acting", async (t) => {
  const sandbox = makeSandboxProvider();
  const auth = await run(sandbox.authorize({ reference: "f", amount: eur(100), paymentMethod: sandboxTokens.visa, capture: true }));
  const providerPaymentId = Either.isRight(auth) && auth.right._tag === "Authorized" ? auth.right.providerPaymentId : "";
  sandbox.injectFault("refund", "timeout_before");
  t.match(await run(sandbox.refund({ reference: "f-re", providerPaymentId, amount: eur(10) })), Either.left({ _tag: "ProviderOutcomeUnknown" }));
  t.equal(sandbox.payments()[0]?.refundedMinor, 0);
  sandbox.injectFault("refund", "timeout_after");
  t.match(await run(sandbox.refund({ reference: "f-re", providerPaymentId, amount: eur(10) })), Either.left({ _tag: "ProviderOutcomeUnknown" }));
  t.equal(sandbox.payments()[0]?.refundedMinor, 10, "it acted");
  t.match(await run(sandbox.refund({ reference: "f-re", providerPaymentId, amount: eur(10) })), Either.right({ _tag: "Done" }), "the retry learns the outcome");
  t.equal(sandbox.payments()[0]?.refundedMinor, 10, "and does not refund twice");
});
