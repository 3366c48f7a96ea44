/**
 * One accepted delivery transition (append-only history). `(deliveryId, transitionId)` is
 * unique: a repeated transition id finds this row and answers it again, changing nothing.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryId, DeliveryStatus } from "./Delivery.js";

export const DeliveryStatusChange = Schema.Struct({
  deliveryId: DeliveryId,
  transitionId: Schema.String,
  fromStatus: Schema.NullOr(DeliveryStatus),
  toStatus: DeliveryStatus,
  /** The delivery's version after this transition. */
  version: Schema.Int.pipe(Schema.positive()),
  actorId: Schema.String,
  reason: Schema.NullOr(Schema.String),
  at: Schema.DateFromSelf,
});
export type DeliveryStatusChange = typeof DeliveryStatusChange.Type;
export const DeliveryStatusChangeWire = wireShape(DeliveryStatusChange);
