/**
 * Tracking and the courier's active job (spec: Authentication 2-4; issue rule 5). Precise
 * positions are exposed only during an active delivery (assigned or picked up): the customer
 * sees the courier's latest position, the assigned courier sees the drop-off address; every
 * such access is audited. Before assignment and after completion tracking answers 404. The
 * customer sees only positions the courier recorded since being assigned to this delivery.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import type { Principal } from "../../ports/Principal.js";
import { callerCourier, notFound, requireUser } from "./Access.js";
import { auditLocationAccess } from "./LocationAccessAudit.js";
import type { Delivery, DeliveryStatus } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

/** How old the newest sample may be to be shown as the courier's position. */
export const trackingFreshnessMs = 5 * 60_000;

const isActive = (status: DeliveryStatus): boolean => status === "assigned" || status === "picked_up";

/**
 * When the delivery's current courier was assigned to it: the newest change to `assigned`
 * (winning the offer or a reassignment). What a courier's presence on the delivery exposes
 * (positions shown to the customer, the chat the courier reads) starts there.
 */
export const currentAssignmentAt = (delivery: Delivery) =>
  Effect.map(DispatchRepository, (dispatch) => dispatch.statusHistory(delivery.id)).pipe(
    Effect.flatten,
    Effect.map((history) => history.filter((change) => change.toStatus === "assigned").at(-1)?.at ?? delivery.updatedAt),
  );

/** What the customer sees while the delivery is active. */
export interface Tracking {
  readonly deliveryId: string;
  readonly status: DeliveryStatus;
  readonly version: number;
  readonly courierPosition: { readonly lat: number; readonly lng: number; readonly recordedAt: Date } | null;
}

/**
 * The customer's tracking of their active delivery: the courier's newest position recorded since
 * the assignment (and in the last five minutes); NotFound for anyone else or when it is not active.
 */
export const trackDelivery = (principal: Principal, deliveryId: string) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const dispatch = yield* DispatchRepository;
    const delivery = yield* dispatch.findDelivery(deliveryId);
    if (delivery === null || delivery.customerId !== customerId || !isActive(delivery.status) || delivery.courierId === null) {
      return yield* Effect.fail(notFound("delivery"));
    }
    const at = yield* now;
    // Only positions sent during this delivery by its current courier: since their assignment
    // (the newest change to `assigned`: winning the offer or a reassignment), at most five minutes old.
    const assignedAt = yield* currentAssignmentAt(delivery);
    const since = new Date(Math.max(at.getTime() - trackingFreshnessMs, assignedAt.getTime()));
    const samples = yield* (yield* LocationSamples).samplesOf(delivery.courierId, since);
    // `recorded_at` is the courier's clock (ingestion accepts a minute ahead): a sample must also
    // have reached the server after the assignment.
    const latest = samples.filter((sample) => sample.receivedAt.getTime() >= assignedAt.getTime()).at(-1);
    yield* auditLocationAccess(delivery.id, customerId, "customer");
    return {
      deliveryId: delivery.id,
      status: delivery.status,
      version: delivery.version,
      courierPosition: latest === undefined ? null : { lat: latest.lat, lng: latest.lng, recordedAt: latest.recordedAt },
    } satisfies Tracking;
  }).pipe(withSpan("delivery.trackDelivery"));

/** The courier's active job with the minimum pickup and drop-off details; NotFound when there is none. */
export const myActiveJob = (principal: Principal, deliveryId: string) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const courier = yield* callerCourier(userId, "delivery");
    const delivery: Delivery | null = yield* (yield* DispatchRepository).findDelivery(deliveryId);
    if (delivery === null || delivery.courierId !== courier.id || !isActive(delivery.status)) return yield* Effect.fail(notFound("delivery"));
    yield* auditLocationAccess(delivery.id, userId, "courier");
    return {
      deliveryId: delivery.id,
      status: delivery.status,
      version: delivery.version,
      pickup: { lat: delivery.pickupLat, lng: delivery.pickupLng },
      dropoff: { lat: delivery.dropoffLat, lng: delivery.dropoffLng, address: delivery.dropoffAddress },
    };
  }).pipe(withSpan("delivery.myActiveJob"));
