/**
 * GET /orders/:id/refunds (the order's customer; anyone else 404, like GET /orders/:id): the
 * refunds support made of the caller's order, oldest first, in keyset pages by id — amount and
 * outcome only, never support's actor or reason (Authentication 2: the customer sees own orders).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, mapPage, pageFrom } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { notFound, requireUser } from "./Access.js";
import { customerRefundOf } from "./model/Refund.js";

/** One page of the refunds of the caller's order. */
export const listMyOrderRefunds = (principal: Principal, orderId: string, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    if (order === null || order.customerId !== customerId) return yield* Effect.fail(notFound("order"));
    const afterId = page.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* Refunds).ofOrder({ orderId: order.id, afterId, limit: page.limit + 1 });
    return mapPage(pageFrom(rows, page.limit, (row) => [row.id]), customerRefundOf);
  }).pipe(withSpan("delivery.listMyOrderRefunds"));
