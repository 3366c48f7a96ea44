/**
 * POST /deliveries/:id/reassign (a dispatcher): the manual reassignment of ReassignDelivery.ts,
 * behind the spec's guards for sensitive support actions — the caller dispatches the region the
 * delivery is picked up in (else 404, like an unknown delivery), signed in recently enough
 * (the token's `auth_time` within DELIVERY_STEP_UP_SECONDS, else 403 step_up_required), and
 * gives a reason; actor and reason are kept in the delivery's status history.
 */
import { Effect } from "effect";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { notFound } from "./Access.js";
import { requireStepUp } from "./StepUp.js";
import { dispatcherRegion, inRegion } from "./ListRegionDeliveries.js";
import { reassignDelivery } from "./ReassignDelivery.js";
import { withSpan } from "../kernel/Span.js";

/** Reassigns a delivery of the caller's region to `courierId`, for `reason`. */
export const reassignAsDispatcher = (principal: Principal, deliveryId: string, input: { readonly courierId: string; readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId, region } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("delivery")));
    const delivery = yield* (yield* DispatchRepository).findDelivery(deliveryId);
    if (delivery === null || !inRegion(delivery, region)) return yield* Effect.fail(notFound("delivery"));
    yield* requireStepUp(principal, "a reassignment");
    return yield* reassignDelivery({ actorId: userId, deliveryId: delivery.id, courierId: input.courierId, reason: input.reason });
  }).pipe(withSpan("delivery.reassignAsDispatcher"));
