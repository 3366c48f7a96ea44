/**
 * Carrier tracking (spec: shipment tracking may lag): updates arrive as signed webhooks, verified
 * by the CarrierWebhookReceiver (signature over the raw body, timestamp tolerance both ways), and
 * are polled from CarrierTracking by a job for shipments still in transit. Both answer the same
 * TrackingUpdate, which the core applies once per carrier event id.
 */
import { Context, type Effect } from "effect";
import { DomainError } from "../../core/kernel/Errors.js";

/** Where a parcel is, in the carrier's words mapped to ours. */
export type CarrierStatus = "in_transit" | "out_for_delivery" | "delivered" | "exception";

/** One tracking event of one parcel; `eventId` is unique per carrier. */
export interface TrackingUpdate {
  readonly eventId: string;
  readonly carrier: string;
  readonly trackingNumber: string;
  readonly status: CarrierStatus;
  readonly occurredAt: Date;
}

/** The delivery is not a verified carrier event (bad signature, stale or future timestamp, unreadable body): 400, nothing stored. */
export class CarrierWebhookRefused extends DomainError("CarrierWebhookRefused", "carrier_webhook_refused", "bad_request") {}

/** The carrier could not be asked now (the poll tries again later). */
export class CarrierUnavailable extends DomainError("CarrierUnavailable", "carrier_unavailable", "unavailable") {}

/** Verifies a carrier webhook delivery and reads its update. */
export interface CarrierWebhookReceiver {
  readonly verify: (delivery: {
    readonly rawBody: string;
    readonly signatureHeader: string | undefined;
    readonly now: Date;
  }) => Effect.Effect<TrackingUpdate, CarrierWebhookRefused>;
}
export const CarrierWebhookReceiver = Context.GenericTag<CarrierWebhookReceiver>("domainkit/commerce/CarrierWebhookReceiver");

/** Asks a carrier where a parcel is now; null when the carrier does not know the number. */
export interface CarrierTracking {
  readonly track: (
    carrier: string,
    trackingNumber: string,
  ) => Effect.Effect<{ readonly status: CarrierStatus; readonly occurredAt: Date } | null, CarrierUnavailable>;
}
export const CarrierTracking = Context.GenericTag<CarrierTracking>("domainkit/commerce/CarrierTracking");
