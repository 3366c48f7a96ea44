/**
 * Courier endpoints: register, go online or offline, send location samples, list live offers,
 * accept an offer (Idempotency-Key required; the database elects one winner), read the active
 * job, and advance the delivery's status with a transition id.
 */
import { Effect } from "effect";
import { acceptOffer } from "../../../core/delivery/AcceptOffer.js";
import { listMyOffers, recordLocations, registerCourier, setCourierOnline } from "../../../core/delivery/Couriers.js";
import { myActiveJob } from "../../../core/delivery/Tracking.js";
import { updateDeliveryStatus } from "../../../core/delivery/UpdateDeliveryStatus.js";
import { CourierWire } from "../../../core/delivery/model/Courier.js";
import { CourierOfferViewWire } from "../../../core/delivery/model/CourierOffer.js";
import { DeliveryStatusChangeWire } from "../../../core/delivery/model/DeliveryStatusChange.js";
import { ActiveJobWire, CourierDeliveryWire, LocationBatchWire } from "../../../core/delivery/model/Views.js";
import { PageOf } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { DeliveryStatusBody, LocationsBody, RegisterCourierBody } from "./CourierSchemas.js";
import { DeliveryParams, OfferParams } from "./RestaurantSchemas.js";

const tags = ["delivery"];
const privateAnswer = { "Cache-Control": "no-store" };

/** POST /couriers — register the caller as a courier (offline until they go online). */
const registerRoute = defineRoute({
  method: "POST",
  path: "/couriers",
  operationId: "registerCourier",
  summary: "Register the caller as a courier",
  description: "The answer's id is the courier_id deliveries carry. Registering again answers the same courier.",
  tags,
  auth: "required",
  // Idempotent by itself (registering again answers the same courier), and no stored answer:
  // it would keep the courier's position (retained briefly) for the idempotency record's 24 h.
  idempotency: "none",
  idempotentByItself: true,
  body: RegisterCourierBody,
  responses: { 201: CourierWire },
  problems: [403, 422],
  handler: ({ principal, body }) => registerCourier(principal, { name: body.name }).pipe(Effect.map((courier) => ({ status: 201, body: courier }))),
});

const onlineRoute = (online: boolean) =>
  defineRoute({
    method: "POST",
    path: online ? "/couriers/me/online" : "/couriers/me/offline",
    operationId: online ? "courierOnline" : "courierOffline",
    summary: online ? "Go online for offers" : "Go offline (no new offers)",
    tags,
    auth: "required",
    // Idempotent by itself (the same state set twice), and no stored answer: it would keep the
    // courier's position (retained briefly) for the idempotency record's 24 h.
    idempotency: "none",
    responses: { 200: CourierWire },
    problems: [403, 404],
    handler: ({ principal }) => setCourierOnline(principal, online).pipe(Effect.map((courier) => ({ status: 200, body: courier }))),
  });

/** POST /couriers/me/locations — a batch of position samples, sealed at rest, kept briefly. */
const locationsRoute = defineRoute({
  method: "POST",
  path: "/couriers/me/locations",
  operationId: "recordCourierLocations",
  summary: "Send a batch of location samples (1 to 100)",
  description:
    "Samples from the future (beyond a minute of clock skew) or past the retention period are dropped and counted. The newest becomes the courier's dispatch position; while the courier has an active delivery, its customer's tracking channel is told.",
  tags,
  budget: { name: "delivery_locations" },
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  body: LocationsBody,
  responses: { 200: LocationBatchWire },
  problems: [403, 404, 422],
  handler: ({ principal, body }) =>
    recordLocations(
      principal,
      body.samples.map((s) => ({ lat: s.lat, lng: s.lng, recordedAt: s.recorded_at })),
    ).pipe(Effect.map((outcome) => ({ status: 200, body: outcome }))),
});

/** GET /couriers/me/offers — the caller's live offers, soonest expiry first (also pushed on `courier:<id>`). */
const offersRoute = defineRoute({
  method: "GET",
  path: "/couriers/me/offers",
  operationId: "listCourierOffers",
  summary: "List the caller's live offers",
  description:
    "Live offers only (a handful per courier: one page, next_cursor is always null). Each shows the pickup point (pickup_lat, pickup_lng) and the trip's length from pickup to drop-off (trip_distance_m, rounded to 100 m); the drop-off itself is shown once the courier wins the delivery.",
  tags,
  auth: "required",
  responses: { 200: PageOf(CourierOfferViewWire) },
  problems: [403, 404],
  handler: ({ principal }) => listMyOffers(principal).pipe(Effect.map((offers) => ({ status: 200, body: { data: offers, next_cursor: null }, headers: privateAnswer }))),
});

/** POST /courier-offers/:id/accept — attempt to win the delivery. */
const acceptOfferRoute = defineRoute({
  method: "POST",
  path: "/courier-offers/:id/accept",
  operationId: "acceptCourierOffer",
  summary: "Accept an offer: exactly one courier wins the delivery",
  description:
    "The offer's courier; Idempotency-Key required. The database decides with one conditional update where courier_id is null: the winner gets 200 with the assigned delivery (its drop-off address included), every other courier 409 delivery_already_assigned; an expired offer answers 410 offer_expired; a courier who already has an active delivery answers 409 courier_busy (one job at a time). Another courier's offer answers 404. Accepting an accepted offer again answers the delivery only while the caller is still its courier and it is assigned or picked up: a courier reassigned away gets 409 delivery_already_assigned, the courier of a delivered or cancelled delivery 409 delivery_not_active. The same holds for a replay under the same Idempotency-Key: the stored answer keeps no drop-off.",
  tags,
  budget: { name: "delivery_offers" },
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  // The drop-off is shown only while the caller is the active delivery's courier (spec,
  // Authentication 3): the stored answer keeps none, and a replay re-checks before showing it.
  unstored: {
    fields: ["dropoff_address", "dropoff_lat", "dropoff_lng"],
    reissue: ({ principal, params }) =>
      acceptOffer(principal, params.id).pipe(
        Effect.map((delivery) => ({ dropoff_address: delivery.dropoffAddress, dropoff_lat: delivery.dropoffLat, dropoff_lng: delivery.dropoffLng })),
      ),
  },
  params: OfferParams,
  responses: { 200: CourierDeliveryWire },
  problems: [403, 404, 409, 410],
  handler: ({ principal, params }) =>
    acceptOffer(principal, params.id).pipe(
      Effect.map(({ customerId: _customer, ...delivery }) => ({ status: 200, body: delivery, etag: delivery.version, headers: privateAnswer })),
    ),
});

/** GET /couriers/me/deliveries/:id — the assigned courier's active job (audited). */
const activeJobRoute = defineRoute({
  method: "GET",
  path: "/couriers/me/deliveries/:id",
  operationId: "getCourierActiveJob",
  summary: "Read the caller's active job: pickup and drop-off",
  description: "The assigned courier only, while the delivery is assigned or picked up (the drop-off address is shown only then); otherwise 404. Each access is audited.",
  tags,
  auth: "required",
  answersEtag: "version",
  params: DeliveryParams,
  responses: { 200: ActiveJobWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    myActiveJob(principal, params.id).pipe(Effect.map((job) => ({ status: 200, body: job, etag: job.version, headers: privateAnswer }))),
});

/** PATCH /deliveries/:id/status — advance the delivery (the assigned courier). */
const statusRoute = defineRoute({
  method: "PATCH",
  path: "/deliveries/:id/status",
  operationId: "updateDeliveryStatus",
  summary: "Advance the delivery to a permitted status (assigned → picked_up → delivered)",
  description:
    "The assigned courier, with a transition id (the same id repeated answers the same change and changes nothing) and the expected version (required: without it 422 on expected_version). 409 for a transition the table does not permit (pickup before assignment), a stale expected_version (delivery_version_conflict, with current_version) or a transition id reused for another status; 422 unknown_delivery_status, and 422 on transition_id for an id the system writes in the status history (\"created\", or starting with \"offer:\" or \"reassign:\"). Completion (delivered) posts the balanced settlement with it and then captures the payment.",
  tags,
  auth: "required",
  answersEtag: "version",
  params: DeliveryParams,
  body: DeliveryStatusBody,
  responses: { 200: DeliveryStatusChangeWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    updateDeliveryStatus(principal, params.id, {
      transitionId: body.transition_id,
      status: body.status,
      expectedVersion: body.expected_version,
    }).pipe(Effect.map((change) => ({ status: 200, body: change, etag: change.version }))),
});

/** Every courier and delivery route. */
export const courierRoutes = [registerRoute, onlineRoute(true), onlineRoute(false), locationsRoute, offersRoute, acceptOfferRoute, activeJobRoute, statusRoute];
