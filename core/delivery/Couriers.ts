/**
 * Couriers: register the caller (`POST /couriers`), go online or offline, send location samples
 * (the newest becomes the courier's dispatch position) and list their live offers.
 */
import { LocationSampleId } from "./model/Ids.js";
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { callerCourier, requireUser } from "./Access.js";
import { CourierPositionUpdated } from "./Events.js";
import { CourierId, type Courier } from "./model/Courier.js";
import type { CourierOfferView } from "./model/CourierOffer.js";
import { distanceMetres } from "./model/Geo.js";
import type { LocationSample } from "./model/LocationSample.js";
import { withSpan } from "../kernel/Span.js";

/** Registers the caller as a courier (offline until they go online); registering again answers the same courier. */
export const registerCourier = (principal: Principal, input: { readonly name: string }) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: "must be 1 to 200 characters" }] }));
    const courier: Courier = {
      id: CourierId.make(yield* (yield* Ids).next),
      userId,
      name,
      online: false,
      lat: null,
      lng: null,
      locatedAt: null,
      createdAt: yield* now,
    };
    return yield* (yield* Transactions).run(Effect.flatMap(DispatchRepository, (d) => d.insertCourier(courier)));
  }).pipe(withSpan("delivery.registerCourier"));

/** Puts the caller online or offline for offers. */
export const setCourierOnline = (principal: Principal, online: boolean) =>
  Effect.gen(function* () {
    const courier = yield* callerCourier(yield* requireUser(principal), "courier");
    yield* (yield* DispatchRepository).setCourierOnline(courier.id, online);
    return { ...courier, online };
  }).pipe(withSpan("delivery.setCourierOnline"));

/**
 * A coordinate rounded to 3 decimals (about 100 m): what realtime position events carry and the
 * only courier position kept in the clear (dl_couriers, for dispatch); precise samples stay sealed.
 */
const coarse = (degrees: number): number => Math.round(degrees * 1000) / 1000;

/** One location sample as a courier's app sends it. */
export interface LocationSampleInput {
  readonly lat: number;
  readonly lng: number;
  readonly recordedAt: Date;
}

/** Records a batch of samples (1 to 100), sealed at rest; the newest, rounded, becomes the courier's dispatch position. */
export const recordLocations = (principal: Principal, samples: ReadonlyArray<LocationSampleInput>) =>
  Effect.gen(function* () {
    const courier = yield* callerCourier(yield* requireUser(principal), "courier");
    const errors: Array<{ path: string; message: string }> = [];
    if (samples.length < 1 || samples.length > 100) errors.push({ path: "samples", message: "must have 1 to 100 samples" });
    samples.forEach((s, i) => {
      if (!Number.isFinite(s.lat) || s.lat < -90 || s.lat > 90) errors.push({ path: `samples.${i}.lat`, message: "must be from -90 to 90" });
      if (!Number.isFinite(s.lng) || s.lng < -180 || s.lng > 180) errors.push({ path: `samples.${i}.lng`, message: "must be from -180 to 180" });
    });
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const at = yield* now;
    // Samples from the future (beyond a minute of clock skew) or older than the retention are dropped.
    const settings = yield* DeliverySettings;
    const kept = samples.filter(
      (s) => s.recordedAt.getTime() <= at.getTime() + 60_000 && s.recordedAt.getTime() >= at.getTime() - settings.locationRetentionSeconds * 1000,
    );
    const ids = yield* Ids;
    const rows: LocationSample[] = [];
    for (const s of kept) rows.push({ id: LocationSampleId.make(yield* ids.next), courierId: courier.id, lat: s.lat, lng: s.lng, recordedAt: s.recordedAt, receivedAt: at });
    const newest = [...kept].sort((a, b) => b.recordedAt.getTime() - a.recordedAt.getTime())[0];
    const moved = newest !== undefined && (courier.locatedAt === null || newest.recordedAt.getTime() > courier.locatedAt.getTime());
    // The samples, the dispatch position and the tracking events commit together: a failure
    // leaves none of them, and the three writes share one commit.
    if (rows.length > 0) {
      yield* (yield* Transactions).run(
        Effect.gen(function* () {
          yield* (yield* LocationSamples).append(rows);
          if (!moved) return;
          const dispatch = yield* DispatchRepository;
          yield* dispatch.setCourierLocation(courier.id, { lat: coarse(newest.lat), lng: coarse(newest.lng), at: newest.recordedAt });
          // The customers of the courier's active deliveries see the move on their tracking channel.
          const active = yield* dispatch.activeDeliveriesOf(courier.id);
          if (active.length === 0) return;
          const events: EventEnvelope[] = [];
          for (const delivery of active) {
            events.push(
              yield* CourierPositionUpdated.make({
                tenant_id: delivery.restaurantId,
                aggregate_id: delivery.id,
                aggregate_version: delivery.version,
                actor_id: courier.userId,
                data: {
                  delivery_id: delivery.id,
                  courier_id: courier.id,
                  lat: coarse(newest.lat),
                  lng: coarse(newest.lng),
                  recorded_at: newest.recordedAt.toISOString(),
                  version: delivery.version,
                },
              }),
            );
          }
          yield* (yield* Outbox).append(events);
        }),
      );
    }
    return { accepted: kept.length, dropped: samples.length - kept.length };
  }).pipe(withSpan("delivery.recordLocations"));

/** The caller's live offers, soonest expiry first, each with its pickup point and trip length (CourierOfferView). */
export const listMyOffers = (principal: Principal) =>
  Effect.gen(function* () {
    const courier = yield* callerCourier(yield* requireUser(principal), "courier");
    const dispatch = yield* DispatchRepository;
    const views: CourierOfferView[] = [];
    for (const offer of yield* dispatch.liveOffers(courier.id, yield* now)) {
      const delivery = yield* dispatch.findDelivery(offer.deliveryId);
      if (delivery === null) continue;
      const pickup = { lat: delivery.pickupLat, lng: delivery.pickupLng };
      const trip = distanceMetres({ lat: delivery.dropoffLat, lng: delivery.dropoffLng }, pickup);
      views.push({ ...offer, pickupLat: pickup.lat, pickupLng: pickup.lng, tripDistanceM: Math.round(trip / 100) * 100 });
    }
    return views;
  }).pipe(withSpan("delivery.listMyOffers"));
