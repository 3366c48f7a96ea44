/**
 * GET /operator/orders/:id/refunds (a dispatcher of the order's region, else 404): the order's
 * refunds with actor, reason and outcome, oldest first, in keyset pages by id.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { orderOfRegion } from "./RefundOrder.js";

/** One page of the order's refunds. */
export const listOrderRefunds = (principal: Principal, orderId: string, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    const { order } = yield* orderOfRegion(principal, orderId);
    const afterId = page.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* Refunds).ofOrder({ orderId: order.id, afterId, limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("delivery.listOrderRefunds"));
