/**
 * Command: a warehouse operator dispatches a confirmed order's committed stock at one location
 * with a carrier and tracking number; an operator who is not the store's owner only when the
 * order's fulfillment task is assigned to them (403 fulfillment_task_not_assigned otherwise). In one transaction: the shipment, each committed
 * reservation there consumed by a conditional status change (on_hand and reserved both drop),
 * the order `dispatched` once nothing committed remains, ShipmentDispatched through the outbox.
 * Then, outside it, the order's authorization is captured under `order:<id>/capture` when the
 * whole order has shipped, and OrderCaptured is published with the capture's record (the payment module captures an authorization once; docs/decisions.md,
 * E-commerce); an unknown capture outcome is retried by the capture job under the same key.
 */
import { Effect, Schema } from "effect";
import { NotFound, ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { shipmentView, type Shipment } from "./model/Shipment.js";
import { loadVisibleOrder } from "./Access.js";
import { FulfillmentTaskNotAssigned, OrderStateConflict, TrackingNumberInUse } from "./Errors.js";
import { closeFulfillmentTask } from "./FulfillmentTaskStatus.js";
import { OrderCaptured, ShipmentDispatched } from "./Events.js";
import type { Order } from "./model/Order.js";
import type { OrderPayment } from "./model/OrderPayment.js";
import { moveOrder, recordTimeline, savePayment } from "./OrderRecords.js";
import { isFreeOrder } from "./PaymentRelease.js";
import { mulDivHalfUp } from "./Pricing.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";
import { type LocationId, OrderId, ShipmentId } from "./model/Ids.js";

export interface DispatchInput {
  readonly locationId: LocationId;
  readonly carrier: string;
  readonly trackingNumber: string;
}

/** Captures the whole order once it has shipped (idempotent: the key is the order's). */
export const captureOrder = (orderId: OrderId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(orderId);
    const payment = yield* orders.findPayment(orderId);
    if (order === null || payment === null || payment.status !== "authorized") return;
    if (isFreeOrder(payment)) {
      // Nothing was authorized, so nothing is captured at the provider: the record is settled.
      return yield* recordCapture(order, payment, 0);
    }
    if (payment.paymentId === null) return;
    const captured = yield* (yield* PaymentGateway).capture({
      merchantId: payment.merchantId,
      paymentId: payment.paymentId,
      idempotencyKey: `order:${orderId}/capture`,
      amount: { amount_minor: payment.amountMinor, currency: order.currency },
    });
    yield* recordCapture(order, payment, captured.capturedMinor);
  }).pipe(withSpan("commerce.captureOrder"));

/**
 * Records the order's capture in one transaction: the payment record (only from the status it was
 * read in, so a capture answered twice records once), its timeline entry and OrderCaptured.
 */
const recordCapture = (order: Order, payment: OrderPayment, capturedMinor: number) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const actorId = "system:commerce-fulfillment";
        if ((yield* savePayment(payment, { status: "captured", capturedMinor })) === null) return;
        yield* recordTimeline(order, "payment.captured", actorId, { amount_minor: capturedMinor });
        const event = yield* OrderCaptured.make({
          tenant_id: order.storeId,
          aggregate_id: order.id,
          aggregate_version: order.version,
          actor_id: actorId,
          data: { order_id: order.id, captured_minor: capturedMinor, currency: order.currency },
        });
        yield* (yield* Outbox).append([event]);
      }),
    ),
  );

/** The durable job that captures a shipped order (retried with backoff while the outcome is unknown). */
export const captureJob: JobDefinition<{ readonly orderId: OrderId }, CommerceServices> = defineJob({
  kind: "commerce.capture-order",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) => captureOrder(orderId),
});

export const dispatchShipment = (userId: string, orderId: OrderId, input: DispatchInput) =>
  Effect.gen(function* () {
    const order = yield* loadVisibleOrder({ kind: "staff", userId, role: "warehouse_operator" }, orderId);
    const errors = [
      ...(input.carrier.trim().length === 0 || input.carrier.length > 100 ? [{ path: "carrier", message: "1 to 100 characters" }] : []),
      ...(input.trackingNumber.trim().length === 0 || input.trackingNumber.length > 100 ? [{ path: "tracking_number", message: "1 to 100 characters" }] : []),
    ];
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    if (order.status !== "confirmed") return yield* Effect.fail(new OrderStateConflict({ orderId, from: order.status, to: "dispatched" }));
    // A warehouse operator ships only an order whose task is assigned to them; owners ship any.
    const owner = (yield* (yield* StoresRepository).rolesOf(order.storeId, userId)).includes("owner");
    const actorId = `staff:${userId}`;
    const shipmentId = ShipmentId.make(yield* (yield* Ids).next);
    const result = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const inventory = yield* InventoryRepository;
        const orders = yield* OrdersRepository;
        const at = yield* now;
        // The order's lock first (cancellation takes it too), then what is left to ship is read under
        // it: a dispatch of another location at the same time has committed or waits for this one.
        yield* orders.lockOrder(orderId);
        const current = yield* orders.findOrder(orderId);
        if (current?.status !== "confirmed") return yield* Effect.fail(new OrderStateConflict({ orderId, from: current?.status ?? order.status, to: "dispatched" }));
        // Read under the order's lock, which the owner's assignments take too.
        if (!owner && (yield* orders.fulfillmentTaskOfOrder(orderId))?.assigneeId !== userId) {
          return yield* Effect.fail(new FulfillmentTaskNotAssigned({ orderId }));
        }
        const reservations = yield* inventory.reservationsOfOrder(orderId);
        const here = reservations.filter((r) => r.status === "committed" && r.locationId === input.locationId);
        if (here.length === 0) return yield* Effect.fail(new NotFound({ resource: "shipment_stock" }));
        const lines = yield* orders.linesOf(orderId);
        let amount = 0;
        // Units of each variant shipped before this shipment (and within it, as they are counted):
        // each line's shipped units are worth their cumulative share, rounded once, so the
        // shipments of a line add up to its total.
        const shippedUnits = new Map<string, number>();
        for (const r of reservations) if (r.status === "consumed") shippedUnits.set(r.variantId, (shippedUnits.get(r.variantId) ?? 0) + r.quantity);
        for (const r of here) {
          if (!(yield* inventory.transitionReservation(r.id, ["committed"], "consumed", at))) {
            return yield* Effect.fail(new OrderStateConflict({ orderId, from: "confirmed", to: "dispatched" }));
          }
          yield* inventory.consume(r.variantId, r.locationId, r.quantity, at);
          const line = lines.find((l) => l.variantId === r.variantId);
          if (line !== undefined) {
            const before = shippedUnits.get(r.variantId) ?? 0;
            const worth = (units: number) => mulDivHalfUp(line.totalMinor, units, line.quantity);
            amount += worth(before + r.quantity) - worth(before);
            shippedUnits.set(r.variantId, before + r.quantity);
          }
        }
        const remaining = reservations.filter((r) => r.status === "committed" && r.locationId !== input.locationId);
        const shipment: Shipment = {
          id: shipmentId,
          storeId: order.storeId,
          orderId,
          locationId: input.locationId,
          status: "dispatched",
          carrier: input.carrier,
          trackingNumber: input.trackingNumber,
          amountMinor: Math.min(amount, order.totalMinor),
          dispatchedAt: at,
          createdAt: at,
        };
        if (!(yield* orders.insertShipment(shipment))) {
          return yield* Effect.fail(new TrackingNumberInUse({ carrier: input.carrier, trackingNumber: input.trackingNumber }));
        }
        yield* recordTimeline(order, "shipment.dispatched", actorId, { shipment_id: shipmentId, carrier: input.carrier, tracking_number: input.trackingNumber });
        const finished = remaining.length === 0 ? yield* moveOrder(orderId, "dispatched", actorId, { from: ["confirmed"] }) : null;
        if (remaining.length === 0 && finished === null) {
          return yield* Effect.fail(new OrderStateConflict({ orderId, from: order.status, to: "dispatched" }));
        }
        if (finished !== null) yield* closeFulfillmentTask(orderId);
        // The fallback if the capture below cannot finish now (it runs first, outside this transaction).
        if (finished !== null) yield* captureJob.schedule({ orderId }, { runAt: new Date(at.getTime() + 30_000), key: `order:${orderId}` });
        const event = yield* ShipmentDispatched.make({
          tenant_id: order.storeId,
          aggregate_id: orderId,
          aggregate_version: (finished ?? current).version,
          actor_id: actorId,
          data: {
            shipment_id: shipmentId,
            order_id: orderId,
            location_id: input.locationId,
            carrier: input.carrier,
            tracking_number: input.trackingNumber,
          },
        });
        yield* (yield* Outbox).append([event]);
        return { shipment, finished: finished !== null };
      }),
    );
    // Capture now; whatever stops it (an unknown outcome, a database error), the shipment has
    // committed and the capture job scheduled with it retries under the same key.
    if (result.finished) yield* followUpOfCommitted(captureOrder(orderId), "capturing a dispatched order", { order_id: orderId });
    return shipmentView(result.shipment, order);
  }).pipe(withSpan("commerce.dispatchShipment"));
