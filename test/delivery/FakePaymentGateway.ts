/**
 * A small in-memory PaymentGateway for the delivery tests (the real in-process gateway needs
 * the payments module's runtime; docs/decisions.md, Food delivery (slice 1)). It honours
 * idempotency keys like the real one: the same key and request answers the same result, the
 * same key with a different request is refused. Tokens follow the sandbox: `pm_card_visa`
 * authorizes, `pm_card_declined` is declined, `pm_card_timeout_after` authorizes but the answer
 * is lost. `failNext(op)` makes the next calls of an operation ambiguous (provider down).
 * `releaseAuthorization` voids what a key holds, or fences a key never used, as the port says.
 * Refunds are keyed too; `settleRefundsAs` makes the provider answer them pending or failed.
 */
import { Effect } from "effect";
import {
  PaymentDeclined,
  PaymentNotFound,
  PaymentOutcomeAmbiguous,
  PaymentRequestInvalid,
  PaymentStateConflict,
  RefundExceedsCapturedAmount,
  type GatewayPayment,
  type GatewayRefund,
  type PaymentGateway,
  type PaymentGatewayError,
} from "../../ports/PaymentGateway.js";

type Operation = "authorize" | "capture" | "cancel" | "release" | "refund";

export interface FakePaymentGateway extends PaymentGateway {
  /** Every payment, by id. */
  readonly payments: () => ReadonlyArray<GatewayPayment>;
  /** How many provider-side effects each operation had (a replayed key does not count). */
  readonly effects: Record<Operation, number>;
  /** The next `times` calls of `op` fail PaymentOutcomeAmbiguous without acting. */
  readonly failNext: (op: Operation, times?: number) => void;
  /** The provider is back for `op`: failures still queued by failNext are dropped. */
  readonly recover: (op: Operation) => void;
  /** How the provider settles the refunds it is sent from now on (succeeded by default); a pending one is settled by a later call under its key. */
  readonly settleRefundsAs: (status: GatewayRefund["status"]) => void;
}

export const makeFakePaymentGateway = (): FakePaymentGateway => {
  const payments = new Map<string, GatewayPayment>();
  type Outcome = { readonly ok: true; readonly paymentId: string } | { readonly ok: false; readonly error: PaymentGatewayError };
  const answers = new Map<string, { readonly request: string; readonly outcome: Outcome }>();
  const failures: Record<Operation, number> = { authorize: 0, capture: 0, cancel: 0, release: 0, refund: 0 };
  const effects: Record<Operation, number> = { authorize: 0, capture: 0, cancel: 0, release: 0, refund: 0 };
  const refunds = new Map<string, { readonly request: string; readonly refund: GatewayRefund }>();
  let refundOutcome: GatewayRefund["status"] = "succeeded";
  let seq = 0;

  const answer = (outcome: Outcome): Effect.Effect<GatewayPayment, PaymentGatewayError> => {
    if (!outcome.ok) return Effect.fail(outcome.error);
    const payment = payments.get(outcome.paymentId);
    return payment === undefined ? Effect.fail(new PaymentNotFound({ paymentId: outcome.paymentId })) : Effect.succeed(payment);
  };

  /** Runs `act` once per key; `lost` marks a first answer that is lost although the provider acted. */
  const keyed = (op: Operation, key: string, request: unknown, act: () => Outcome & { readonly lost?: boolean }) =>
    Effect.suspend((): Effect.Effect<GatewayPayment, PaymentGatewayError> => {
      if (failures[op] > 0) {
        failures[op] -= 1;
        return Effect.fail(new PaymentOutcomeAmbiguous({ operation: op, paymentId: null, detail: "provider down (fake)" }));
      }
      const fingerprint = JSON.stringify([op, request]);
      const scoped = `${op}:${key}`;
      const previous = answers.get(scoped);
      if (previous !== undefined) {
        return previous.request === fingerprint ? answer(previous.outcome) : Effect.fail(new PaymentRequestInvalid({ reason: "idempotency_key_reused" }));
      }
      effects[op] += 1;
      const outcome = act();
      answers.set(scoped, { request: fingerprint, outcome });
      if (outcome.lost === true && outcome.ok) {
        return Effect.fail(new PaymentOutcomeAmbiguous({ operation: op, paymentId: outcome.paymentId, detail: "answer lost (fake)" }));
      }
      return answer(outcome);
    });

  const update = (paymentId: string, merchantId: string, change: (p: GatewayPayment) => GatewayPayment | PaymentGatewayError): Outcome => {
    const payment = payments.get(paymentId);
    if (payment === undefined || payment.merchantId !== merchantId) return { ok: false, error: new PaymentNotFound({ paymentId }) };
    const next = change(payment);
    if ("_tag" in next) return { ok: false, error: next };
    payments.set(paymentId, next);
    return { ok: true, paymentId };
  };

  return {
    payments: () => [...payments.values()],
    effects,
    failNext: (op, times = 1) => {
      failures[op] += times;
    },
    recover: (op) => {
      failures[op] = 0;
    },
    authorize: (request) =>
      Effect.suspend(() => {
        const { idempotencyKey, ...rest } = request;
        return keyed("authorize", idempotencyKey, rest, () => {
          const paymentId = `pay_${++seq}`;
          if (request.paymentMethod === "pm_card_declined") {
            return { ok: false, error: new PaymentDeclined({ paymentId, declineCode: "card_declined" }) };
          }
          const payment: GatewayPayment = {
            paymentId,
            merchantId: request.merchantId,
            status: "requires_capture",
            amount: request.amount,
            capturableMinor: request.amount.amount_minor,
            capturedMinor: 0,
            refundedMinor: 0,
          };
          payments.set(paymentId, payment);
          return { ok: true, paymentId, lost: request.paymentMethod === "pm_card_timeout_after" };
        });
      }),
    capture: (request) =>
      keyed("capture", request.idempotencyKey, { paymentId: request.paymentId, amount: request.amount ?? null }, () =>
        update(request.paymentId, request.merchantId, (p) =>
          p.status !== "requires_capture"
            ? new PaymentStateConflict({ reason: `payment is ${p.status}` })
            : { ...p, status: "succeeded", capturedMinor: p.capturableMinor, capturableMinor: 0 },
        ),
      ),
    cancel: (request) =>
      keyed("cancel", request.idempotencyKey, { paymentId: request.paymentId }, () =>
        update(request.paymentId, request.merchantId, (p) =>
          p.status !== "requires_capture" ? new PaymentStateConflict({ reason: `payment is ${p.status}` }) : { ...p, status: "canceled", capturableMinor: 0 },
        ),
      ),
    releaseAuthorization: (request) =>
      Effect.suspend((): Effect.Effect<GatewayPayment, PaymentGatewayError> => {
        if (failures.release > 0) {
          failures.release -= 1;
          return Effect.fail(new PaymentOutcomeAmbiguous({ operation: "release", paymentId: null, detail: "provider down (fake)" }));
        }
        const { idempotencyKey, ...rest } = request;
        const fingerprint = JSON.stringify(["authorize", rest]);
        const scoped = `authorize:${idempotencyKey}`;
        const previous = answers.get(scoped);
        if (previous !== undefined && previous.request !== fingerprint) return Effect.fail(new PaymentRequestInvalid({ reason: "idempotency_key_reused" }));
        const paymentId = previous === undefined ? `pay_${++seq}` : previous.outcome.ok ? previous.outcome.paymentId : null;
        const held = paymentId === null ? undefined : payments.get(paymentId);
        if (held !== undefined && held.status !== "requires_capture") return Effect.succeed(held);
        effects.release += 1;
        const released: GatewayPayment = {
          paymentId: paymentId ?? `pay_${++seq}`,
          merchantId: request.merchantId,
          status: "canceled",
          amount: request.amount,
          capturableMinor: 0,
          capturedMinor: 0,
          refundedMinor: 0,
        };
        payments.set(released.paymentId, released);
        // A key never used is fenced: a late authorize under it holds nothing.
        if (previous === undefined) answers.set(scoped, { request: fingerprint, outcome: { ok: false, error: new PaymentStateConflict({ reason: "payment is canceled" }) } });
        return Effect.succeed(released);
      }),
    settleRefundsAs: (status) => {
      refundOutcome = status;
    },
    refund: (request) =>
      Effect.suspend((): Effect.Effect<GatewayRefund, PaymentGatewayError> => {
        if (failures.refund > 0) {
          failures.refund -= 1;
          return Effect.fail(new PaymentOutcomeAmbiguous({ operation: "refund", paymentId: request.paymentId, detail: "provider down (fake)" }));
        }
        const { idempotencyKey, ...rest } = request;
        const fingerprint = JSON.stringify(rest);
        const previous = refunds.get(idempotencyKey);
        const payment = payments.get(request.paymentId);
        if (previous !== undefined) {
          if (previous.request !== fingerprint) return Effect.fail(new PaymentRequestInvalid({ reason: "idempotency_key_reused" }));
          // A pending refund is settled by the provider later: the next call under its key answers the outcome.
          if (previous.refund.status !== "pending" || refundOutcome === "pending" || payment === undefined) return Effect.succeed(previous.refund);
          const settled = { ...previous.refund, status: refundOutcome };
          refunds.set(idempotencyKey, { request: fingerprint, refund: settled });
          if (refundOutcome === "succeeded") payments.set(payment.paymentId, { ...payment, refundedMinor: payment.refundedMinor + request.amount.amount_minor });
          return Effect.succeed(settled);
        }
        if (payment === undefined || payment.merchantId !== request.merchantId) return Effect.fail(new PaymentNotFound({ paymentId: request.paymentId }));
        if (payment.status !== "succeeded") return Effect.fail(new PaymentStateConflict({ reason: `payment is ${payment.status}` }));
        const pendingMinor = [...refunds.values()].filter((r) => r.refund.paymentId === payment.paymentId && r.refund.status === "pending").reduce((sum, r) => sum + r.refund.amount.amount_minor, 0);
        const refundable = payment.capturedMinor - payment.refundedMinor - pendingMinor;
        if (request.amount.amount_minor > refundable) return Effect.fail(new RefundExceedsCapturedAmount({ refundableMinor: refundable }));
        effects.refund += 1;
        const refund: GatewayRefund = { refundId: `re_${++seq}`, paymentId: payment.paymentId, amount: request.amount, status: refundOutcome };
        refunds.set(idempotencyKey, { request: fingerprint, refund });
        if (refundOutcome === "succeeded") payments.set(payment.paymentId, { ...payment, refundedMinor: payment.refundedMinor + request.amount.amount_minor });
        return Effect.succeed(refund);
      }),
    status: (request) =>
      Effect.suspend(() => {
        const payment = payments.get(request.paymentId);
        return payment === undefined || payment.merchantId !== request.merchantId ? Effect.fail(new PaymentNotFound({ paymentId: request.paymentId })) : Effect.succeed(payment);
      }),
  };
};
