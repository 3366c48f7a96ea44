/** The delivery module's configuration (docs/decisions.md, Food delivery (slice 1)): documented defaults. */
import { Context } from "effect";

export interface DeliverySettings {
  /** Offers sent at once per dispatch round (DELIVERY_OFFER_FANOUT, default 3). */
  readonly offerFanout: number;
  /** Offer lifetime (DELIVERY_OFFER_TTL_SECONDS, default 30). */
  readonly offerTtlSeconds: number;
  /** How far from the pickup a courier may be to be offered a delivery (DELIVERY_DISPATCH_RADIUS_M, default 20000). */
  readonly dispatchRadiusM: number;
  /** Restaurant acceptance deadline (DELIVERY_ACCEPT_DEADLINE_SECONDS, default 300). */
  readonly acceptDeadlineSeconds: number;
  /** Quote lifetime (DELIVERY_QUOTE_TTL_SECONDS, default 300). */
  readonly quoteTtlSeconds: number;
  /** How long precise location samples are kept (DELIVERY_LOCATION_RETENTION_SECONDS, default 3600). */
  readonly locationRetentionSeconds: number;
  /** Dispatch rounds before a delivery waits for a dispatcher (default 5). */
  readonly maxDispatchRounds: number;
  /** How recent a dispatcher's sign-in (`auth_time`) must be for a reassignment (DELIVERY_STEP_UP_SECONDS, default 300). */
  readonly stepUpMaxAgeSeconds: number;
  /** How long chat messages are kept after their delivery ended (DELIVERY_CHAT_RETENTION_SECONDS, default 86400). */
  readonly chatRetentionSeconds: number;
}
export const DeliverySettings = Context.GenericTag<DeliverySettings>("domainkit/delivery/DeliverySettings");

export const defaultDeliverySettings: DeliverySettings = {
  offerFanout: 3,
  offerTtlSeconds: 30,
  dispatchRadiusM: 20_000,
  acceptDeadlineSeconds: 300,
  quoteTtlSeconds: 300,
  maxDispatchRounds: 5,
  locationRetentionSeconds: 3600,
  stepUpMaxAgeSeconds: 300,
  chatRetentionSeconds: 86_400,
};
