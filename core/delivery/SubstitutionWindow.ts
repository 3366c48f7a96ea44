/**
 * When a substitution may be proposed and decided: on an authorized or accepted order whose
 * delivery, if it has one, is not picked up yet (docs/decisions.md, substitutions). Checked in
 * the caller's transaction under the delivery's lock and then the order's (the lock order of a
 * completion), so a pickup, a completion or a rejection committed meanwhile is seen.
 */
import { Effect } from "effect";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { notFound } from "./Access.js";
import { SubstitutionNotAllowed } from "./Errors.js";
import type { RestaurantOrder } from "./model/RestaurantOrder.js";

/** Locks the order's delivery and workflow; answers the workflow, or fails SubstitutionNotAllowed (409) outside the window. */
export const lockSubstitutionWindow = (orderId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const dispatch = yield* DispatchRepository;
    const seen = yield* orders.findWorkflow(orderId);
    if (seen === null) return yield* Effect.fail(notFound("order"));
    const locked = seen.deliveryId === null ? null : yield* dispatch.findDelivery(seen.deliveryId, { forUpdate: true });
    const workflow: RestaurantOrder | null = yield* orders.findWorkflow(orderId, { forUpdate: true });
    if (workflow === null) return yield* Effect.fail(notFound("order"));
    // Accepted meanwhile: its delivery was created pending a moment ago.
    const delivery = locked ?? (workflow.deliveryId === null ? null : yield* dispatch.findDelivery(workflow.deliveryId));
    const beforePickup = delivery === null || delivery.status === "pending" || delivery.status === "assigned";
    if ((workflow.status !== "authorized" && workflow.status !== "accepted") || !beforePickup) {
      return yield* Effect.fail(
        new SubstitutionNotAllowed({
          status: workflow.status,
          detail: `substitutions are proposed and decided on an authorized or accepted order before pickup; the order is ${workflow.status}${delivery === null ? "" : `, its delivery ${delivery.status}`}`,
        }),
      );
    }
    return workflow;
  });
