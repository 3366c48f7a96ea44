/**
 * A courier holds one active job (spec, Authentication 2: "Courier (own offers, active job, ...)";
 * batch deliveries are future scope, outside the contract). Offers of several deliveries may be
 * live for one courier at once (each was made while the courier was free), so every assignment
 * (winning an offer, a dispatcher's reassignment) locks the courier's row and checks, under that
 * lock, that no other delivery of theirs is assigned or picked up. Callers lock the delivery
 * first and the courier second, one order for every assignment, so two never wait on each other.
 */
import { Effect } from "effect";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { notFound } from "./Access.js";
import { CourierBusy } from "./Errors.js";
import type { Courier } from "./model/Courier.js";

/** Locks the courier `courierId` for the transaction and fails CourierBusy when another delivery than `deliveryId` is active for it. */
export const lockFreeCourier = (courierId: string, deliveryId: string): Effect.Effect<Courier, CourierBusy | ReturnType<typeof notFound>, DispatchRepository> =>
  Effect.gen(function* () {
    const dispatch = yield* DispatchRepository;
    const courier = yield* dispatch.findCourier(courierId, { forUpdate: true });
    if (courier === null) return yield* Effect.fail(notFound("courier"));
    const others = (yield* dispatch.activeDeliveriesOf(courier.id)).filter((d) => d.id !== deliveryId);
    if (others.length > 0) {
      return yield* Effect.fail(new CourierBusy({ courierId: courier.id, detail: "the courier already has an active delivery; one job at a time" }));
    }
    return courier;
  });
