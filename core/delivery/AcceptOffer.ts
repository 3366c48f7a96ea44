/**
 * POST /courier-offers/:id/accept (the offer's courier): the winner election of spec rule 3.
 * The database decides with one conditional update (`... WHERE courier_id IS NULL`); exactly one
 * courier wins, every other one fails DeliveryAlreadyAssigned naming the winner (kernel
 * WinnerElection), an expired offer fails OfferExpired (410). The winner's transaction marks
 * the other offers lost, records the assignment in the status history and writes
 * CourierAssigned with the delivery version. Accepting again answers the same delivery (with its
 * drop-off address) only while the caller is still its courier and it is assigned or picked up
 * (spec, Authentication 3): a courier reassigned away gets 409 delivery_already_assigned, the
 * courier of a finished delivery 409 delivery_not_active. A courier who already has an active
 * delivery wins no other (409 courier_busy: one job at a time, OneActiveJob.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict } from "../kernel/Errors.js";
import { claim } from "../kernel/WinnerElection.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { callerCourier, notFound, requireUser } from "./Access.js";
import { offerTransitionId } from "./DeliveryStatus.js";
import { DeliveryAlreadyAssigned, DeliveryNotActive, OfferExpired } from "./Errors.js";
import { CourierAssigned } from "./Events.js";
import { lostDeliveryEvents } from "./LostDelivery.js";
import { lockFreeCourier } from "./OneActiveJob.js";
import { withdrawOffersJob } from "./Dispatch.js";
import type { Delivery } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

// A losing courier learns only that the delivery was taken, never who took it (spec: couriers see
// minimum details); the winner stays on the error for logs and callers in-process.
const alreadyAssigned = (deliveryId: string, winner: string | null) =>
  new DeliveryAlreadyAssigned({ deliveryId, winner, detail: winner === null ? "the delivery is no longer open" : "the delivery was assigned to another courier" });

/** Accepts the caller's offer; answers the delivery assigned to the caller. */
export const acceptOffer = (principal: Principal, offerId: string) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const courier = yield* callerCourier(userId, "courier_offer");
    const dispatch = yield* DispatchRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const offer = yield* dispatch.findOffer(offerId);
        if (offer === null || offer.courierId !== courier.id) return yield* Effect.fail(notFound("courier_offer"));
        // The delivery, then the courier (lockFreeCourier): the one lock order of every assignment.
        const delivery = yield* dispatch.findDelivery(offer.deliveryId, { forUpdate: true });
        if (delivery === null) return yield* Effect.fail(notFound("courier_offer"));
        if (offer.status === "accepted") {
          if (delivery.courierId !== courier.id) return yield* Effect.fail(alreadyAssigned(delivery.id, delivery.courierId));
          if (delivery.status !== "assigned" && delivery.status !== "picked_up") {
            return yield* Effect.fail(new DeliveryNotActive({ deliveryId: delivery.id, status: delivery.status, detail: `the delivery is ${delivery.status}; its drop-off is no longer shown` }));
          }
          return delivery;
        }
        if (offer.status === "lost" || (delivery.courierId !== null && delivery.courierId !== courier.id)) {
          return yield* Effect.fail(alreadyAssigned(delivery.id, delivery.courierId));
        }
        // One active job per courier: an offer made while the courier was free is refused once
        // they are busy (before the expiry check: the job that withdraws a busy courier's offers
        // marks them expired, and busy is the reason).
        yield* lockFreeCourier(courier.id, delivery.id);
        const at = yield* now;
        if (offer.status === "expired" || at.getTime() >= offer.expiresAt.getTime()) {
          return yield* Effect.fail(new OfferExpired({ offerId, detail: "the offer has expired" }));
        }
        const assigned: Delivery | null = yield* dispatch.assignCourier(delivery.id, courier.id, at);
        if (assigned === null) {
          // Someone else was first: the stored winner decides (the winner retrying still wins).
          const current = yield* dispatch.findDelivery(delivery.id);
          const winner = current?.courierId ?? null;
          if (winner === null) return yield* Effect.fail(alreadyAssigned(delivery.id, null));
          yield* claim({ winner }, courier.id).pipe(Effect.mapError((taken) => alreadyAssigned(delivery.id, taken.winner)));
          if (current === null) return yield* Effect.fail(notFound("courier_offer"));
          return current;
        }
        if (!(yield* dispatch.decideOffer(offer.id, "offered", "accepted", at))) {
          return yield* Effect.fail(new Conflict({ code: "offer_not_open", detail: "the offer is no longer open" }));
        }
        const losers = yield* dispatch.loseOtherOffers(delivery.id, offer.id, at);
        // The courier's offers of other deliveries can no longer be won: withdrawn after commit.
        if ((yield* dispatch.liveOffers(courier.id, at)).some((o) => o.deliveryId !== delivery.id)) {
          yield* withdrawOffersJob.schedule({ courierId: courier.id }, { runAt: at, key: `${courier.id}:${offer.id}` });
        }
        yield* dispatch.insertStatusChange({
          deliveryId: assigned.id,
          transitionId: offerTransitionId(offer.id),
          fromStatus: delivery.status,
          toStatus: "assigned",
          version: assigned.version,
          actorId: userId,
          reason: null,
          at,
        });
        const event = yield* CourierAssigned.make({
          tenant_id: assigned.restaurantId,
          aggregate_id: assigned.id,
          aggregate_version: assigned.version,
          actor_id: userId,
          data: {
            delivery_id: assigned.id,
            order_id: assigned.orderId,
            courier_id: courier.id,
            offer_id: offer.id,
            version: assigned.version,
          },
        });
        const lost = yield* lostDeliveryEvents(assigned, userId, losers.map((l) => ({ courierId: l.courierId, offerId: l.id })));
        yield* (yield* Outbox).append([event, ...lost]);
        return assigned;
      }),
    );
  }).pipe(withSpan("delivery.acceptOffer"));
