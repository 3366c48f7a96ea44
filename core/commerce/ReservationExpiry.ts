/**
 * Reservation expiry (spec: an active reservation whose expires_at passes is released, with
 * ReservationExpired; a conditional status change prevents a second release). The job runs at
 * the order's expiry: if the order is still in checkout (pending or payment_pending) it moves to
 * `expired` and its active reservations are released — each by a conditional status change,
 * so a racing checkout confirmation, cancellation or second run releases nothing twice. A
 * confirmed order's reservations are committed and never expire.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { ReservationExpired } from "./Events.js";
import { moveOrder, releaseReservations } from "./OrderRecords.js";
import { givePromotionUsesBack } from "./Promotions.js";
import { withSpan } from "../kernel/Span.js";
import { OrderId } from "./model/Ids.js";

/** Releases the order's expired reservations; answers how many this run released. */
export const expireOrderReservations = (orderId: OrderId) =>
  (Effect.gen(function* () {
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const due = (yield* (yield* InventoryRepository).reservationsOfOrder(orderId)).filter(
          (r) => r.status === "active" && r.expiresAt.getTime() <= at.getTime(),
        );
        if (due.length === 0) return 0;
        const moved = yield* moveOrder(orderId, "expired", "system:reservation-expiry", { from: ["pending", "payment_pending"] });
        if (moved === null) return 0;
        const released = yield* releaseReservations(orderId, ["active"], { dueBy: at });
        yield* givePromotionUsesBack(orderId);
        const events = [];
        for (const r of released) {
          events.push(
            yield* ReservationExpired.make({
              tenant_id: r.storeId,
              aggregate_id: r.orderId,
              aggregate_version: moved.version,
              actor_id: "system:reservation-expiry",
              data: { reservation_id: r.id, order_id: r.orderId, variant_id: r.variantId, location_id: r.locationId, quantity: r.quantity },
            }),
          );
        }
        yield* (yield* Outbox).append(events);
        return released.length;
      }),
    );
  })).pipe(withSpan("commerce.expireOrderReservations"));

/** The durable job, scheduled by checkout at the reservations' expiry (key `order:<id>`). */
export const reservationExpiryJob = defineJob({
  kind: "commerce.expire-reservations",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) => Effect.asVoid(expireOrderReservations(orderId)),
});
