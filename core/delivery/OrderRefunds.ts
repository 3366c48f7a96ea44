/**
 * The payment side of support's refunds (RefundOrder.ts). A refund is recorded `pending` with a
 * keyed job (`delivery.refund`, key `refund:<refund id>`) in the request's transaction; after
 * commit the gateway is called under a key stable per refund (`delivery:refund:<refund id>`), so
 * a retry, a replay from the dead-letter desk or the request's own try never refunds twice. The
 * outcome is recorded once, under the order's workflow lock:
 *   - refunded: a refund of the whole captured amount reverses the order's settlement (customer
 *     charge, restaurant and courier payables, platform fee; recorded payables are reversed with
 *     it: SettlePayouts.ts); a partial refund is borne by the platform (a balanced `refund:<id>`
 *     pair: the customer charge down, the platform's share down), the participants keep their
 *     payables. OrderRefunded goes on the outbox.
 *   - failed: the payment refused it for good; it no longer counts against the captured amount.
 * While the provider is down, its answer is unknown or the refund is still pending at the
 * provider, the job fails and is retried (dead letters after the bound: the payment desk).
 */
import { Effect, Either, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict } from "../kernel/Errors.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { validateTransaction } from "../kernel/Ledger.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { RefundPending } from "./Errors.js";
import { OrderRefunded } from "./Events.js";
import { DeliveryId, SettlementEntryId } from "./model/Ids.js";
import type { Order } from "./model/Order.js";
import type { Refund } from "./model/Refund.js";
import type { SettlementEntry } from "./model/SettlementEntry.js";
import { postSettlementReversal } from "./ReverseSettlement.js";

/** The gateway key of one refund. */
export const refundKey = (refundId: string): string => `delivery:refund:${refundId}`;

/** Gateway failures that may pass (the provider's answer unknown, or the same key still running): retried. */
const transientFailures = new Set(["PaymentOutcomeAmbiguous", "PaymentStateConflict"]);

/** The platform bears a partial refund: the customer's charge and the platform's share go down by the amount. */
const platformBorneEntries = (refund: Refund, order: Order, deliveryId: DeliveryId, at: Date) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const source = `refund:${refund.id}`;
    const tx = yield* validateTransaction({
      source,
      entries: [
        { account: `customer:${order.customerId}`, amount_minor: -refund.amountMinor, currency: refund.currency },
        { account: "platform", amount_minor: refund.amountMinor, currency: refund.currency },
      ],
    });
    const entries: SettlementEntry[] = [];
    for (const entry of tx.entries) {
      const component = entry.account === "platform" ? ("platform_fee" as const) : ("customer_charge" as const);
      entries.push({
        id: SettlementEntryId.make(yield* ids.next),
        orderId: order.id,
        deliveryId,
        component,
        componentKey: `${source}:${component}`,
        account: entry.account,
        amountMinor: entry.amount_minor,
        currency: entry.currency,
        reverses: null,
        actorId: refund.actorId,
        reason: refund.reason,
        createdAt: at,
      });
    }
    return entries;
  });

/** Records a refund's outcome once (nothing when it is no longer pending), with its ledger effect and event. */
const recordOutcome = (refund: Refund, order: Order, outcome: { readonly status: "refunded" | "failed"; readonly failure: string | null }) =>
  Effect.flatMap(Transactions, (tx) => tx.run(
    Effect.gen(function* () {
      const orders = yield* OrdersRepository;
      const workflow = yield* orders.findWorkflow(order.id, { forUpdate: true });
      const at = yield* now;
      if (!(yield* (yield* Refunds).settle(refund.id, { ...outcome, at }))) return;
      if (outcome.status === "failed" || workflow === null || workflow.deliveryId === null) return;
      const whole = refund.amountMinor === order.totalMinor;
      if (whole) {
        // A settlement already reversed by a correction owes nobody anything more.
        yield* postSettlementReversal({ actorId: refund.actorId, orderId: order.id, reason: refund.reason }).pipe(Effect.catchTag("AlreadyReversed", () => Effect.void));
      } else {
        yield* (yield* SettlementLedger).post(yield* platformBorneEntries(refund, order, workflow.deliveryId, at));
      }
      const event = yield* OrderRefunded.make({
        tenant_id: order.restaurantId,
        aggregate_id: order.id,
        aggregate_version: workflow.version,
        actor_id: refund.actorId,
        data: { refund_id: refund.id, order_id: order.id, restaurant_id: order.restaurantId, amount_minor: refund.amountMinor, currency: refund.currency, settlement_reversed: whole },
      });
      yield* (yield* Outbox).append([event]);
    }),
  ));

/** Sends a pending refund to the gateway and records its outcome; fails (to be retried) while the outcome is not known. */
export const settleRefund = (refundId: string) =>
  Effect.gen(function* () {
    const refund = yield* (yield* Refunds).find(refundId);
    if (refund === null || refund.status !== "pending") return;
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(refund.orderId);
    const workflow = yield* orders.findWorkflow(refund.orderId);
    if (order === null || workflow === null || workflow.paymentId === null) {
      return yield* Effect.fail(new Conflict({ code: "payment_unknown", detail: `refund ${refundId}: the order's payment is not known` }));
    }
    const answer = yield* Effect.either(
      (yield* PaymentGateway).refund({
        merchantId: order.merchantId,
        paymentId: workflow.paymentId,
        amount: { amount_minor: refund.amountMinor, currency: refund.currency },
        idempotencyKey: refundKey(refund.id),
      }),
    );
    if (Either.isLeft(answer)) {
      if (transientFailures.has(answer.left._tag)) return yield* Effect.fail(answer.left);
      return yield* recordOutcome(refund, order, { status: "failed", failure: answer.left.code });
    }
    if (answer.right.status === "pending") return yield* Effect.fail(new RefundPending({ refundId, detail: `refund ${refundId} is still pending at the provider` }));
    yield* recordOutcome(refund, order, answer.right.status === "succeeded" ? { status: "refunded", failure: null } : { status: "failed", failure: "refund_failed" });
  }).pipe(withSpan("delivery.settleRefund"));

/** What a refund job carries (the order too, for the dead-letter desk). */
export const RefundJobPayload = Schema.Struct({ refundId: Schema.String, orderId: Schema.String });

/** Retries a refund until the payment answers it (then dead letters: the payment desk replays it). */
export const refundJob = defineJob({ kind: "delivery.refund", payload: RefundJobPayload, handle: (p) => settleRefund(p.refundId) });
