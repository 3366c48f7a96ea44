/**
 * Contract kit for the PaymentGateway port (what an order or delivery core relies on): the same
 * key and request answers the same payment with one provider authorization, even raced; a
 * decline is typed and replayed; partial capture then partial refunds, never above what was
 * captured; another merchant's payment is not found; an amount in another currency is refused;
 * a key reused for a different request is refused; cancel voids and blocks a later capture;
 * a lost provider answer is PaymentOutcomeAmbiguous with the payment left processing, never guessed;
 * releasing an authorization by its request voids it, fences a key never used, and waits while
 * the provider's answer is unknown.
 *
 * Besides the port, the adapter under test provides a {@link PaymentGatewayFixture}: how to
 * make a merchant, which payment-method tokens approve or decline, and how many authorizations
 * the provider saw (the observable side of "never charges twice").
 */
import { Context, Effect, Either } from "effect";
import { PaymentGateway, type PaymentGatewayError } from "../../ports/PaymentGateway.js";
import { runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** What the kit needs besides the port, supplied by the test that runs it. */
export interface PaymentGatewayFixture {
  /** A fresh merchant the gateway may act for; answers its id. */
  readonly newMerchant: Effect.Effect<string>;
  /** A token the provider approves, one it declines, and one whose answer is lost after it acted. */
  readonly paymentMethods: { readonly approved: string; readonly declined: string; readonly ambiguous: string };
  /** How many authorization calls the provider has received so far. */
  readonly authorizations: Effect.Effect<number>;
}
export const PaymentGatewayFixture = Context.GenericTag<PaymentGatewayFixture>("domainkit/test/PaymentGatewayFixture");

/** The ports this kit needs. */
export type PaymentGatewayKitPorts = PaymentGateway | PaymentGatewayFixture;

let seq = 0;
const key = (name: string): string => `kit-${name}-${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
const eur = (amount_minor: number) => ({ amount_minor, currency: "EUR" });

const gateway = Effect.flatMap(PaymentGateway, Effect.succeed);
const fixture = Effect.flatMap(PaymentGatewayFixture, Effect.succeed);

/** The failure's tag (and reason or code) of an effect expected to fail, for assertions. */
const failureOf = <A, R>(effect: Effect.Effect<A, PaymentGatewayError, R>) =>
  Effect.map(Effect.either(effect), (e) => (Either.isLeft(e) ? e.left : null));

/** The fixture, the gateway and a fresh merchant: what most cases start from. */
const withNewMerchant = Effect.gen(function* () {
  const f = yield* fixture;
  return { f, g: yield* gateway, merchantId: yield* f.newMerchant };
});

/** A merchant with a held authorization of `amount` EUR. */
const authorized = (amount: number) =>
  Effect.gen(function* () {
    const f = yield* fixture;
    const merchantId = yield* f.newMerchant;
    const payment = yield* (yield* gateway).authorize({
      merchantId,
      idempotencyKey: key("auth"),
      reference: `order:${key("order")}`,
      amount: eur(amount),
      paymentMethod: f.paymentMethods.approved,
    });
    return { merchantId, payment };
  });

/** The cases of the payment gateway kit. */
export const paymentGatewayCases: ReadonlyArray<KitCase<PaymentGatewayKitPorts>> = [
  {
    name: "payment gateway: the same key and request answers the same payment with one provider authorization",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const before = yield* f.authorizations;
          const request = { merchantId, idempotencyKey: key("same"), reference: "order:1", amount: eur(2500), paymentMethod: f.paymentMethods.approved };
          const first = yield* g.authorize(request);
          const second = yield* g.authorize(request);
          return { first, second, calls: (yield* f.authorizations) - before };
        }),
      );
      t.equal(result.first.status, "requires_capture", "manual capture by default: the amount is held");
      t.equal(result.first.capturableMinor, 2500);
      t.same(result.second, result.first, "the retry answers the same payment");
      t.equal(result.calls, 1, "one provider authorization");
    },
  },
  {
    name: "payment gateway: concurrent identical authorizes make one provider authorization",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const before = yield* f.authorizations;
          const request = { merchantId, idempotencyKey: key("race"), reference: "order:2", amount: eur(900), paymentMethod: f.paymentMethods.approved };
          // A status read of a payment that does not exist, whatever it answers.
          yield* warmUp(6, Effect.exit(g.status({ merchantId, paymentId: "warm-up" })));
          const outcomes = yield* Effect.all(
            Array.from({ length: 6 }, () => Effect.either(g.authorize(request))),
            { concurrency: "unbounded" },
          );
          return { outcomes, calls: (yield* f.authorizations) - before };
        }),
      );
      t.equal(result.calls, 1, "exactly one provider authorization");
      const ids = new Set(result.outcomes.flatMap((o) => (Either.isRight(o) ? [o.right.paymentId] : [])));
      t.ok(ids.size <= 1, "every success is the same payment");
      for (const o of result.outcomes) {
        if (Either.isLeft(o)) t.equal(o.left._tag, "PaymentStateConflict", "a loser is told the same key is still running");
      }
    },
  },
  {
    name: "payment gateway: a declined payment method fails PaymentDeclined, and the retry answers the same",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const request = { merchantId, idempotencyKey: key("decline"), reference: "order:3", amount: eur(700), paymentMethod: f.paymentMethods.declined };
          const first = yield* failureOf(g.authorize(request));
          const again = yield* failureOf(g.authorize(request));
          const status = first?._tag === "PaymentDeclined" ? yield* g.status({ merchantId, paymentId: first.paymentId }) : null;
          return { first, again, status };
        }),
      );
      t.equal(result.first?._tag, "PaymentDeclined");
      t.equal(result.again?._tag, "PaymentDeclined");
      if (result.first?._tag === "PaymentDeclined" && result.again?._tag === "PaymentDeclined") {
        t.equal(result.again.paymentId, result.first.paymentId, "the same payment");
        t.ok(result.first.declineCode.length > 0, "a decline code");
      }
      t.equal(result.status?.status, "requires_payment_method", "the payment waits for another method");
    },
  },
  {
    name: "payment gateway: a lost provider answer is ambiguous, the payment stays processing, and a retry never charges twice",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const before = yield* f.authorizations;
          const request = { merchantId, idempotencyKey: key("lost"), reference: "order:4", amount: eur(650), paymentMethod: f.paymentMethods.ambiguous };
          const first = yield* failureOf(g.authorize(request));
          const again = yield* failureOf(g.authorize(request));
          const paymentId = first?._tag === "PaymentOutcomeAmbiguous" ? first.paymentId : null;
          const status = paymentId === null ? null : yield* g.status({ merchantId, paymentId });
          return { first, again, status, calls: (yield* f.authorizations) - before };
        }),
      );
      t.equal(result.first?._tag, "PaymentOutcomeAmbiguous");
      t.equal(result.again?._tag, "PaymentOutcomeAmbiguous", "the retry is not guessed either");
      if (result.first?._tag === "PaymentOutcomeAmbiguous" && result.again?._tag === "PaymentOutcomeAmbiguous") {
        t.ok(result.first.paymentId !== null && result.first.paymentId.length > 0, "the payment to watch is named");
        t.equal(result.again.paymentId, result.first.paymentId, "the same payment");
      }
      t.equal(result.status?.status, "processing", "neither succeeded nor failed");
      t.equal(result.calls, 1, "one provider authorization");
    },
  },
  {
    name: "payment gateway: partial capture, then partial refunds up to the captured amount and no further",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const g = yield* gateway;
          const { merchantId, payment } = yield* authorized(1000);
          const captured = yield* g.capture({ merchantId, idempotencyKey: key("cap"), paymentId: payment.paymentId, amount: eur(600) });
          const refund = yield* g.refund({ merchantId, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: eur(250) });
          const over = yield* failureOf(g.refund({ merchantId, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: eur(351) }));
          const rest = yield* g.refund({ merchantId, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: eur(350) });
          const beyond = yield* failureOf(g.refund({ merchantId, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: eur(1) }));
          const status = yield* g.status({ merchantId, paymentId: payment.paymentId });
          return { captured, refund, over, rest, beyond, status };
        }),
      );
      t.equal(result.captured.status, "succeeded");
      t.equal(result.captured.capturedMinor, 600, "partial capture");
      t.equal(result.refund.status, "succeeded");
      t.same(result.refund.amount, eur(250));
      t.equal(result.over?._tag, "RefundExceedsCapturedAmount", "350 left, 351 refused");
      if (result.over?._tag === "RefundExceedsCapturedAmount") t.equal(result.over.refundableMinor, 350);
      t.equal(result.rest.status, "succeeded");
      t.equal(result.beyond?._tag, "RefundExceedsCapturedAmount", "nothing left to refund");
      t.equal(result.status.refundedMinor, 600);
      t.equal(result.status.capturedMinor, 600);
    },
  },
  {
    name: "payment gateway: a capture above the held amount is refused",
    run: async (t, run) => {
      const failure = await run(
        Effect.gen(function* () {
          const { merchantId, payment } = yield* authorized(500);
          return yield* failureOf((yield* gateway).capture({ merchantId, idempotencyKey: key("cap"), paymentId: payment.paymentId, amount: eur(501) }));
        }),
      );
      t.equal(failure?._tag, "CaptureExceedsAuthorized");
    },
  },
  {
    name: "payment gateway: another merchant's payment is not found",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const g = yield* gateway;
          const { payment } = yield* authorized(300);
          const other = yield* (yield* fixture).newMerchant;
          return {
            status: yield* failureOf(g.status({ merchantId: other, paymentId: payment.paymentId })),
            capture: yield* failureOf(g.capture({ merchantId: other, idempotencyKey: key("cap"), paymentId: payment.paymentId })),
            refund: yield* failureOf(g.refund({ merchantId: other, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: eur(1) })),
            unknown: yield* failureOf(g.status({ merchantId: other, paymentId: "00000000-0000-7000-8000-000000000000" })),
          };
        }),
      );
      t.equal(result.status?._tag, "PaymentNotFound");
      t.equal(result.capture?._tag, "PaymentNotFound");
      t.equal(result.refund?._tag, "PaymentNotFound");
      t.equal(result.unknown?._tag, "PaymentNotFound", "exactly like an unknown id");
    },
  },
  {
    name: "payment gateway: an amount in another currency is refused",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const g = yield* gateway;
          const { merchantId, payment } = yield* authorized(400);
          const capture = yield* failureOf(
            g.capture({ merchantId, idempotencyKey: key("cap"), paymentId: payment.paymentId, amount: { amount_minor: 400, currency: "USD" } }),
          );
          yield* g.capture({ merchantId, idempotencyKey: key("cap"), paymentId: payment.paymentId });
          const refund = yield* failureOf(
            g.refund({ merchantId, idempotencyKey: key("ref"), paymentId: payment.paymentId, amount: { amount_minor: 100, currency: "USD" } }),
          );
          return { capture, refund };
        }),
      );
      t.equal(result.capture?._tag, "PaymentCurrencyMismatch");
      t.equal(result.refund?._tag, "PaymentCurrencyMismatch");
    },
  },
  {
    name: "payment gateway: a key reused for a different request is refused",
    run: async (t, run) => {
      const failure = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const idempotencyKey = key("reuse");
          yield* g.authorize({ merchantId, idempotencyKey, reference: "order:a", amount: eur(100), paymentMethod: f.paymentMethods.approved });
          return yield* failureOf(g.authorize({ merchantId, idempotencyKey, reference: "order:a", amount: eur(200), paymentMethod: f.paymentMethods.approved }));
        }),
      );
      t.equal(failure?._tag, "PaymentRequestInvalid");
      if (failure?._tag === "PaymentRequestInvalid") t.equal(failure.reason, "idempotency_key_reused");
    },
  },
  {
    name: "payment gateway: cancel voids a held authorization; a later capture is a state conflict",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const g = yield* gateway;
          const { merchantId, payment } = yield* authorized(800);
          const canceled = yield* g.cancel({ merchantId, idempotencyKey: key("cancel"), paymentId: payment.paymentId });
          const capture = yield* failureOf(g.capture({ merchantId, idempotencyKey: key("cap"), paymentId: payment.paymentId }));
          return { canceled, capture };
        }),
      );
      t.equal(result.canceled.status, "canceled");
      t.equal(result.capture?._tag, "PaymentStateConflict");
    },
  },
  {
    name: "payment gateway: releasing an authorization voids what it holds, once, without a second provider authorization",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const request = { merchantId, idempotencyKey: key("release"), reference: "order:release", amount: eur(1500), paymentMethod: f.paymentMethods.approved };
          const held = yield* g.authorize(request);
          const before = yield* f.authorizations;
          const released = yield* g.releaseAuthorization(request);
          const again = yield* g.releaseAuthorization(request);
          const capture = yield* failureOf(g.capture({ merchantId, idempotencyKey: key("cap"), paymentId: held.paymentId }));
          return { held, released, again, capture, calls: (yield* f.authorizations) - before };
        }),
      );
      t.equal(result.held.status, "requires_capture");
      t.equal(result.released.paymentId, result.held.paymentId, "the authorization made under the key");
      t.equal(result.released.status, "canceled");
      t.equal(result.released.capturableMinor, 0, "nothing held any more");
      t.equal(result.again.status, "canceled", "releasing again answers the same");
      t.equal(result.capture?._tag, "PaymentStateConflict", "a released authorization cannot be captured");
      t.equal(result.calls, 0, "releasing never authorizes");
    },
  },
  {
    name: "payment gateway: releasing a key never authorized charges nothing and fences it: a late authorize under it holds nothing",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const before = yield* f.authorizations;
          const request = { merchantId, idempotencyKey: key("fence"), reference: "order:fence", amount: eur(900), paymentMethod: f.paymentMethods.approved };
          const released = yield* g.releaseAuthorization(request);
          const late = yield* failureOf(g.authorize(request));
          const status = yield* g.status({ merchantId, paymentId: released.paymentId });
          return { released, late, status, calls: (yield* f.authorizations) - before };
        }),
      );
      t.equal(result.released.status, "canceled");
      t.equal(result.late?._tag, "PaymentStateConflict", "the late authorization is refused");
      t.equal(result.status.status, "canceled");
      t.equal(result.status.capturableMinor, 0);
      t.equal(result.calls, 0, "the provider was never asked to authorize");
    },
  },
  {
    name: "payment gateway: releasing a declined authorization cancels it; one whose answer is unknown must wait (ambiguous)",
    run: async (t, run) => {
      const result = await run(
        Effect.gen(function* () {
          const { f, g, merchantId } = yield* withNewMerchant;
          const declined = { merchantId, idempotencyKey: key("rel-decl"), reference: "order:rel-decl", amount: eur(300), paymentMethod: f.paymentMethods.declined };
          yield* failureOf(g.authorize(declined));
          const released = yield* g.releaseAuthorization(declined);
          const lost = { merchantId, idempotencyKey: key("rel-lost"), reference: "order:rel-lost", amount: eur(400), paymentMethod: f.paymentMethods.ambiguous };
          yield* failureOf(g.authorize(lost));
          const waiting = yield* failureOf(g.releaseAuthorization(lost));
          return { released, waiting };
        }),
      );
      t.equal(result.released.status, "canceled");
      t.equal(result.waiting?._tag, "PaymentOutcomeAmbiguous", "never released while the provider may still hold the money");
    },
  },
  {
    name: "payment gateway: automatic capture ends succeeded at once",
    run: async (t, run) => {
      const payment = await run(
        Effect.gen(function* () {
          const f = yield* fixture;
          const merchantId = yield* f.newMerchant;
          return yield* (yield* gateway).authorize({
            merchantId,
            idempotencyKey: key("auto"),
            reference: "order:auto",
            amount: eur(1200),
            paymentMethod: f.paymentMethods.approved,
            captureMethod: "automatic",
          });
        }),
      );
      t.equal(payment.status, "succeeded");
      t.equal(payment.capturedMinor, 1200);
    },
  },
];

/** Runs the payment gateway kit against an adapter. */
export const paymentGatewaySuite = (options: SuiteOptions<PaymentGatewayKitPorts>): Promise<unknown> =>
  runCases(options, paymentGatewayCases);
