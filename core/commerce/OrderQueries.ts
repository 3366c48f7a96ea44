/** Queries: an order with its lines and timeline (owner or support), and the caller's orders by keyset cursor. */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom } from "../kernel/Page.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { OrderView } from "./model/Order.js";
import { loadVisibleOrder, type OrderActor } from "./Access.js";
import { withOrderTexts } from "./OrderNotes.js";
import { withSpan } from "../kernel/Span.js";
import type { OrderId } from "./model/Ids.js";

export const getOrder = (actor: OrderActor, orderId: OrderId) =>
  Effect.gen(function* () {
    const order = yield* loadVisibleOrder(actor, orderId);
    const orders = yield* OrdersRepository;
    // Who in the warehouse holds the order's task (and why it moved) is the store's business.
    const seen = (yield* orders.timelineOf(orderId)).filter((entry) => actor.kind === "staff" || !entry.kind.startsWith("fulfillment."));
    const timeline = yield* withOrderTexts(orderId, seen);
    const view: OrderView = { ...order, lines: yield* orders.linesOf(orderId), timeline };
    return view;
  }).pipe(withSpan("commerce.getOrder"));

export const listOrders = (customerId: string, input: { readonly cursor: string | null; readonly limit: number }) =>
  Effect.gen(function* () {
    const before = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* OrdersRepository).ordersOfCustomer(customerId, before, input.limit + 1);
    return pageFrom(rows, input.limit, (o) => [o.id]);
  }).pipe(withSpan("commerce.listOrders"));
