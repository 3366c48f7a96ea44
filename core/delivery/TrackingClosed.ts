/**
 * Tracking ends with the delivery (spec: precise locations are exposed only during an active
 * delivery). A delivered order's customer may no longer subscribe to `delivery:<id>`; a live
 * subscription is re-authorized and dropped by this job, which runs a few seconds after
 * completion so the completion's own events reach the customer first (the realtime consumer
 * delivers them after the module's consumers, so a consumer would be too early).
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { deliveryChannel } from "./ChannelAccess.js";
import { withSpan } from "../kernel/Span.js";

/** How long after completion the customer's live tracking subscription is re-checked and dropped. */
export const trackingCloseDelayMs = 5_000;

/** Tells every process that the customer lost access to the delivery's channel. */
export const trackingClosedJob = defineJob({
  kind: "delivery.tracking_closed",
  payload: Schema.Struct({ deliveryId: Schema.String, customerId: Schema.String }),
  handle: (p) =>
    Effect.flatMap(RealtimeBus, (bus) => bus.publish({ type: "access_changed", userId: p.customerId, channel: deliveryChannel(p.deliveryId) })).pipe(
      withSpan("delivery.trackingClosed"),
    ),
});
