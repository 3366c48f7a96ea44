/**
 * GET /dispatch/deliveries/:id (a dispatcher): one unfinished delivery of the caller's region
 * with its customer and drop-off (address and precise point), which the region list leaves out.
 * Each read is audited: one row in the location access log (spec: Authentication 2, "sensitive
 * actions audited"; Authentication 4, "Location access is … audited"). A caller who is not a
 * dispatcher, a delivery outside the region, or a delivery that is delivered or cancelled
 * answers 404, as an unknown delivery does.
 */
import { Effect } from "effect";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { notFound } from "./Access.js";
import { auditLocationAccess } from "./LocationAccessAudit.js";
import { dispatcherRegion, inRegion } from "./ListRegionDeliveries.js";
import type { Delivery } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

/** The delivery `deliveryId` of the caller's region, its drop-off included; the read is audited. */
export const readRegionDelivery = (principal: Principal, deliveryId: string) =>
  Effect.gen(function* () {
    const { userId, region } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("delivery")));
    const delivery: Delivery | null = yield* (yield* DispatchRepository).findDelivery(deliveryId);
    if (delivery === null || !inRegion(delivery, region) || delivery.status === "delivered" || delivery.status === "cancelled") {
      return yield* Effect.fail(notFound("delivery"));
    }
    yield* auditLocationAccess(delivery.id, userId, "dispatcher");
    return delivery;
  }).pipe(withSpan("delivery.readRegionDelivery"));
