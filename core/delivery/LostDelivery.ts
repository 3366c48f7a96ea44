/**
 * The notices of the couriers who lost a delivery to an assignment (spec: "losing couriers are
 * notified"): one CourierLostDelivery per lost offer (a reassigned courier's accepted one
 * included), and one without an offer for a courier who held the delivery without one, each to
 * that courier's channel only.
 */
import { Effect } from "effect";
import { CourierLostDelivery } from "./Events.js";
import type { Delivery } from "./model/Delivery.js";

/** A courier who lost the delivery: through `offerId`, or (null) by a reassignment of the delivery they held. */
export interface LostBy {
  readonly courierId: string;
  readonly offerId: string | null;
}

/** The events telling each of `lost` that `assigned` (at its new version) went to another courier. */
export const lostDeliveryEvents = (assigned: Delivery, actorId: string | null, lost: ReadonlyArray<LostBy>) =>
  Effect.forEach(lost, ({ courierId, offerId }) =>
    CourierLostDelivery.make({
      tenant_id: assigned.restaurantId,
      aggregate_id: assigned.id,
      aggregate_version: assigned.version,
      actor_id: actorId,
      data: { delivery_id: assigned.id, courier_id: courierId, offer_id: offerId, version: assigned.version },
    }),
  );
