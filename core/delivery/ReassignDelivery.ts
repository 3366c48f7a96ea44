/**
 * A dispatcher's manual reassignment (spec: every manual reassignment records actor and
 * reason): a pending or assigned delivery goes to another courier, its version advances, the
 * status history keeps who did it and why, still-open offers and the previous courier's accepted
 * offer are lost (so that courier can no longer accept it again to read the drop-off) and CourierAssigned
 * carries the new version. A courier who already has another active delivery is refused (409
 * courier_busy). Role, region scope and step-up authentication are checked by the
 * caller's route (docs/decisions.md, Food delivery (slice 1)).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict, ValidationFailed } from "../kernel/Errors.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound } from "./Access.js";
import { reassignTransitionId } from "./DeliveryStatus.js";
import { CourierAssigned } from "./Events.js";
import { lostDeliveryEvents } from "./LostDelivery.js";
import { lockFreeCourier } from "./OneActiveJob.js";
import { withdrawOffersJob } from "./Dispatch.js";
import type { Delivery } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

/** Reassigns the delivery to `courierId` on behalf of `actorId` for `reason`; answers the delivery. */
export const reassignDelivery = (input: { readonly actorId: string; readonly deliveryId: string; readonly courierId: string; readonly reason: string }) =>
  Effect.gen(function* () {
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a reassignment needs a reason (1 to 500 characters)" }] }));
    }
    const dispatch = yield* DispatchRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const delivery = yield* dispatch.findDelivery(input.deliveryId, { forUpdate: true });
        if (delivery === null) return yield* Effect.fail(notFound("delivery"));
        const courier = yield* dispatch.findCourier(input.courierId);
        if (courier === null) return yield* Effect.fail(notFound("courier"));
        if (delivery.courierId === courier.id) return delivery;
        if (delivery.status !== "pending" && delivery.status !== "assigned") {
          return yield* Effect.fail(new Conflict({ code: "delivery_not_reassignable", detail: `a ${delivery.status} delivery cannot be reassigned` }));
        }
        // One active job per courier (OneActiveJob.ts): a busy courier is refused, 409 courier_busy.
        yield* lockFreeCourier(courier.id, delivery.id);
        const at = yield* now;
        const next: Delivery = { ...delivery, courierId: courier.id, status: "assigned", version: delivery.version + 1, updatedAt: at };
        if (!(yield* dispatch.updateDelivery(next, delivery.version))) {
          return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "the delivery changed meanwhile; retry" }));
        }
        const losers = yield* dispatch.loseOtherOffers(delivery.id, "", at);
        // The new courier's offers of other deliveries can no longer be won: withdrawn after commit.
        if ((yield* dispatch.liveOffers(courier.id, at)).some((o) => o.deliveryId !== delivery.id)) {
          yield* withdrawOffersJob.schedule({ courierId: courier.id }, { runAt: at, key: `${courier.id}:${delivery.id}:${next.version}` });
        }
        yield* dispatch.insertStatusChange({
          deliveryId: delivery.id,
          transitionId: reassignTransitionId(yield* (yield* Ids).next),
          fromStatus: delivery.status,
          toStatus: "assigned",
          version: next.version,
          actorId: input.actorId,
          reason,
          at,
        });
        const event = yield* CourierAssigned.make({
          tenant_id: delivery.restaurantId,
          aggregate_id: delivery.id,
          aggregate_version: next.version,
          actor_id: input.actorId,
          data: {
            delivery_id: delivery.id,
            order_id: delivery.orderId,
            courier_id: courier.id,
            offer_id: null,
            version: next.version,
          },
        });
        // The previous courier's accepted offer is among the lost ones; one assigned by an earlier
        // reassignment holds no offer and is told without one.
        const previousHeldNoOffer = delivery.courierId !== null && delivery.courierId !== courier.id && !losers.some((l) => l.courierId === delivery.courierId);
        const lost = yield* lostDeliveryEvents(next, input.actorId, [
          ...losers.map((l) => ({ courierId: l.courierId, offerId: l.id })),
          ...(previousHeldNoOffer && delivery.courierId !== null ? [{ courierId: delivery.courierId, offerId: null }] : []),
        ]);
        yield* (yield* Outbox).append([event, ...lost]);
        return next;
      }),
    );
  }).pipe(withSpan("delivery.reassignDelivery"));
