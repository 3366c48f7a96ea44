/** A request to replay a dead merchant webhook delivery: one operator asks, a different one approves. */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ReplayRequestId, WebhookDeliveryId } from "./Ids.js";

/** A replay request record (table payment_webhook_replay_requests). */
export const ReplayRequest = Schema.Struct({
  id: ReplayRequestId,
  deliveryId: WebhookDeliveryId,
  requestedBy: Schema.String,
  reason: Schema.String,
  requestedAt: Schema.DateFromSelf,
  approvedBy: Schema.NullOr(Schema.String),
  approvalReason: Schema.NullOr(Schema.String),
  approvedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type ReplayRequest = typeof ReplayRequest.Type;

/** A replay request as operators see it. */
export const ReplayRequestView = Schema.Struct({
  id: ReplayRequest.fields.id,
  object: Schema.Literal("webhook_replay_request"),
  ...Struct.omit(ReplayRequest.fields, "id"),
});
export type ReplayRequestView = typeof ReplayRequestView.Type;
/** The replay request view on the wire. */
export const ReplayRequestWire = wireShape(ReplayRequestView);

/** The operators' view of `request`. */
export const replayRequestView = (request: ReplayRequest): ReplayRequestView => ({
  id: request.id,
  object: "webhook_replay_request",
  ...Struct.omit(request, "id"),
});
