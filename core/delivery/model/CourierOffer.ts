/** An expiring dispatch proposal to one courier (spec: CourierOffer): many per delivery, at most one wins. */
import { CourierOfferId } from "./Ids.js";
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CourierId } from "./Courier.js";
import { DeliveryId } from "./Delivery.js";

export { CourierOfferId } from "./Ids.js";

/** Transition table: core/delivery/OfferStatus.ts. */
export const OfferStatus = Schema.Literal("offered", "accepted", "lost", "expired");
export type OfferStatus = typeof OfferStatus.Type;

export const CourierOffer = Schema.Struct({
  id: CourierOfferId,
  deliveryId: DeliveryId,
  courierId: CourierId,
  status: OfferStatus,
  round: Schema.Int.pipe(Schema.positive()),
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
  decidedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type CourierOffer = typeof CourierOffer.Type;
export const CourierOfferWire = wireShape(CourierOffer);

/**
 * An offer as its courier sees it (spec, Authentication 2: "minimum pickup and drop-off details"):
 * the pickup point (the restaurant's, public) and the trip's length from pickup to drop-off,
 * rounded to 100 m. The drop-off point and address stay with the delivery until the courier wins
 * it (Authentication 3).
 */
export const CourierOfferView = Schema.Struct({
  ...CourierOffer.fields,
  pickupLat: Schema.Number,
  pickupLng: Schema.Number,
  tripDistanceM: Schema.Int,
});
export type CourierOfferView = typeof CourierOfferView.Type;
export const CourierOfferViewWire = wireShape(CourierOfferView);
