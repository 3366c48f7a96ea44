/**
 * Dispatch (spec: offer and delivery; Background work, offer expiry and redispatch): a round
 * offers the pending delivery to the nearest online couriers within DELIVERY_DISPATCH_RADIUS_M of
 * the pickup that are not busy and were never offered it (DELIVERY_OFFER_FANOUT at once, each
 * expiring after DELIVERY_OFFER_TTL_SECONDS).
 * The expiry job expires the round's offers and, while the delivery is still pending with no
 * live offer, starts the next round with other couriers.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { CourierOffered } from "./Events.js";
import { CourierOfferId, type CourierOffer } from "./model/CourierOffer.js";
import type { Delivery } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

/** Runs one dispatch round for a pending delivery inside the caller's transaction; answers the new offers. */
/** The services a dispatch round needs. */
export type DispatchServices = DeliverySettings | DispatchRepository | Ids | Outbox | Jobs;

export const dispatchRound = (delivery: Delivery): Effect.Effect<ReadonlyArray<CourierOffer>, never, DispatchServices> =>
  Effect.gen(function* () {
    const none: ReadonlyArray<CourierOffer> = [];
    if (delivery.status !== "pending") return none;
    const settings = yield* DeliverySettings;
    const dispatch = yield* DispatchRepository;
    const ids = yield* Ids;
    const previous = yield* dispatch.offersOfDelivery(delivery.id);
    const round = previous.reduce((max, offer) => Math.max(max, offer.round), 0) + 1;
    if (round > settings.maxDispatchRounds) return none;
    const at = yield* now;
    const expiresAt = new Date(at.getTime() + settings.offerTtlSeconds * 1000);
    const candidates = yield* dispatch.candidates(delivery.id, { lat: delivery.pickupLat, lng: delivery.pickupLng }, settings.offerFanout, settings.dispatchRadiusM);
    const offers: CourierOffer[] = [];
    for (const courier of candidates) {
      offers.push({
        id: CourierOfferId.make(yield* ids.next),
        deliveryId: delivery.id,
        courierId: courier.id,
        status: "offered",
        round,
        expiresAt,
        createdAt: at,
        decidedAt: null,
      });
    }
    yield* dispatch.insertOffers(offers);
    const events = [];
    for (const offer of offers) {
      events.push(
        yield* CourierOffered.make({
          tenant_id: delivery.restaurantId,
          aggregate_id: delivery.id,
          aggregate_version: delivery.version,
          actor_id: null,
          data: { offer_id: offer.id, delivery_id: delivery.id, courier_id: offer.courierId, expires_at: expiresAt.toISOString(), round },
        }),
      );
    }
    yield* (yield* Outbox).append(events);
    // With no candidate now, the same round is tried again after one offer lifetime.
    yield* offerExpiryJob.schedule({ deliveryId: delivery.id }, { runAt: expiresAt, key: `${delivery.id}:${round}:${expiresAt.getTime()}` });
    return offers;
  }).pipe(withSpan("delivery.dispatchRound"));

/** Expires the delivery's overdue offers and redispatches when none is live; answers the new offers. */
export const expireOffers = (deliveryId: string): Effect.Effect<ReadonlyArray<CourierOffer>, never, DispatchServices | Transactions> =>
  Effect.gen(function* () {
    const dispatch = yield* DispatchRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const delivery = yield* dispatch.findDelivery(deliveryId, { forUpdate: true });
        if (delivery === null) return [];
        const at = yield* now;
        yield* dispatch.expireOffers(deliveryId, at);
        if (delivery.status !== "pending") return [];
        const live = (yield* dispatch.offersOfDelivery(deliveryId)).filter((offer) => offer.status === "offered");
        return live.length > 0 ? [] : yield* dispatchRound(delivery);
      }),
    );
  }).pipe(withSpan("delivery.expireOffers"));

export const offerExpiryJob: JobDefinition<{ readonly deliveryId: string }, DispatchServices | Transactions> = defineJob({
  kind: "delivery.offer_expiry",
  payload: Schema.Struct({ deliveryId: Schema.String }),
  handle: (p) => Effect.asVoid(expireOffers(p.deliveryId)),
});

/**
 * Withdraws the live offers of a courier who is now busy (one active job: OneActiveJob.ts), each
 * in a transaction of its own under its delivery's lock, as expired; a pending delivery left with
 * no live offer is offered to the next couriers at once rather than after the offer's lifetime.
 * An offer of a courier who is free again (their delivery ended meanwhile) stands.
 */
export const withdrawBusyOffers = (courierId: string): Effect.Effect<number, never, DispatchServices | Transactions> =>
  Effect.gen(function* () {
    const dispatch = yield* DispatchRepository;
    const live = yield* dispatch.liveOffers(courierId, yield* now);
    let withdrawn = 0;
    for (const offer of live) {
      withdrawn += yield* (yield* Transactions).run(
        Effect.gen(function* () {
          const delivery = yield* dispatch.findDelivery(offer.deliveryId, { forUpdate: true });
          if (delivery === null) return 0;
          const busy = (yield* dispatch.activeDeliveriesOf(courierId)).some((active) => active.id !== delivery.id);
          const at = yield* now;
          if (!busy || !(yield* dispatch.decideOffer(offer.id, "offered", "expired", at))) return 0;
          if (delivery.status === "pending") {
            const stillLive = (yield* dispatch.offersOfDelivery(delivery.id)).some((o) => o.status === "offered" && o.expiresAt.getTime() > at.getTime());
            if (!stillLive) yield* dispatchRound(delivery);
          }
          return 1;
        }),
      );
    }
    return withdrawn;
  }).pipe(withSpan("delivery.withdrawBusyOffers"));

/** Scheduled by every assignment (an offer won, a reassignment) for the courier it makes busy. */
export const withdrawOffersJob: JobDefinition<{ readonly courierId: string }, DispatchServices | Transactions> = defineJob({
  kind: "delivery.withdraw_offers",
  payload: Schema.Struct({ courierId: Schema.String }),
  handle: (p) => Effect.asVoid(withdrawBusyOffers(p.courierId)),
});
