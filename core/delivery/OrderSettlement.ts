/**
 * GET /restaurant-orders/:id/settlement (staff of the owning restaurant): the order's immutable
 * settlement entries — customer charge, restaurant payable, courier payable, platform fee and
 * any linked reversals — oldest first. They sum to zero per currency. Before completion the
 * list is empty; another restaurant's order answers NotFound.
 */
import { Effect } from "effect";
import type { Principal } from "../../ports/Principal.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { notFound, requireUser } from "./Access.js";
import { withSpan } from "../kernel/Span.js";

/** The settlement entries of an order of the caller's restaurant. */
export const orderSettlement = (principal: Principal, orderId: string) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const workflow = yield* (yield* OrdersRepository).findWorkflow(orderId);
    if (workflow === null || !(yield* (yield* RestaurantsRepository).isStaff(workflow.restaurantId, userId))) return yield* Effect.fail(notFound("order"));
    return yield* (yield* SettlementLedger).entriesOfOrder(orderId);
  }).pipe(withSpan("delivery.orderSettlement"));
