/**
 * The restaurant's incoming orders (staff only; spec: Restaurant staff see their restaurant's
 * incoming orders): open workflows (awaiting payment, authorized, accepted) oldest first, so
 * the order nearest its acceptance deadline is on top; keyset pages by order id.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { Principal } from "../../ports/Principal.js";
import { requireUser, staffRestaurant } from "./Access.js";
import type { OrderStatus, RestaurantOrder } from "./model/RestaurantOrder.js";
import { withSpan } from "../kernel/Span.js";

export const openOrderStatuses: ReadonlyArray<OrderStatus> = ["payment_pending", "authorized", "accepted"];

/** One page of the restaurant's open orders. */
export const listIncomingOrders = (principal: Principal, restaurantId: string, query: { readonly cursor?: string | undefined; readonly limit?: number } = {}) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const restaurant = yield* staffRestaurant(restaurantId, userId);
    const after = query.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, query.cursor))[0];
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 100);
    const rows = yield* (yield* OrdersRepository).listWorkflows({ restaurantId: restaurant.id, statuses: openOrderStatuses, afterOrderId: after, limit: limit + 1 });
    return pageFrom(rows, limit, (row) => [row.orderId]) satisfies Page<RestaurantOrder>;
  }).pipe(withSpan("delivery.listIncomingOrders"));
