/**
 * Queries: an order with its lines and the first page of its timeline (owner, guest or staff), its
 * timeline in keyset pages, and the caller's orders by keyset cursor.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { OrderTimelineEntry, OrderView } from "./model/Order.js";
import { loadVisibleOrder, type OrderActor } from "./Access.js";
import { withOrderTexts } from "./OrderNotes.js";
import { withSpan } from "../kernel/Span.js";
import type { OrderId } from "./model/Ids.js";

/** A page of a list: the opaque cursor of the previous page (null: the first) and the size. */
export interface PageInput {
  readonly cursor: string | null;
  readonly limit: number;
}

/**
 * How a shopper is shown an entry's actor: a staff member as `staff`, without the person (who in
 * the store shipped, cancelled or inspected is the store's business); every other actor as stored.
 */
export const shopperVisibleActor = (actorId: string): string => (actorId.startsWith("staff:") ? "staff" : actorId);

/**
 * A page of the order's timeline in entry order (by id). Who in the warehouse holds the order's
 * task (and why it moved) is the store's business: a shopper's page leaves out `fulfillment.*`
 * entries in the query, before the limit, so its pages stay full, and shows staff actors as `staff`.
 */
const timelinePageOf = (actor: OrderActor, orderId: OrderId, input: PageInput) =>
  Effect.gen(function* () {
    const afterId = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* OrdersRepository).timelinePage(orderId, { afterId, withFulfillment: actor.kind === "staff", limit: input.limit + 1 });
    const page = pageFrom(rows, input.limit, (entry) => [entry.id]);
    const entries = yield* withOrderTexts(orderId, page.data);
    const data = actor.kind === "staff" ? entries : entries.map((entry) => ({ ...entry, actorId: shopperVisibleActor(entry.actorId) }));
    const timeline: Page<OrderTimelineEntry> = { data, next_cursor: page.next_cursor };
    return timeline;
  });

/** A list's page size when the request names none (the default of the host's `Limits.listDefault`). */
const defaultTimelineLimit = 50;

/**
 * The order with its lines and the first `timelineLimit` entries of its timeline (the page the
 * timeline list answers with no cursor; the route passes the host's default page size) and that
 * list's cursor of the next page.
 */
export const getOrder = (actor: OrderActor, orderId: OrderId, timelineLimit: number = defaultTimelineLimit) =>
  Effect.gen(function* () {
    const order = yield* loadVisibleOrder(actor, orderId);
    const orders = yield* OrdersRepository;
    const first = yield* timelinePageOf(actor, orderId, { cursor: null, limit: timelineLimit });
    const view: OrderView = { ...order, lines: yield* orders.linesOf(orderId), timeline: first.data, timelineNextCursor: first.next_cursor };
    return view;
  }).pipe(withSpan("commerce.getOrder"));

/** The order's timeline in keyset pages, for whoever may read the order (NotFound otherwise). */
export const listOrderTimeline = (actor: OrderActor, orderId: OrderId, input: PageInput) =>
  Effect.gen(function* () {
    yield* loadVisibleOrder(actor, orderId);
    return yield* timelinePageOf(actor, orderId, input);
  }).pipe(withSpan("commerce.listOrderTimeline"));

export const listOrders = (customerId: string, input: PageInput) =>
  Effect.gen(function* () {
    const before = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* OrdersRepository).ordersOfCustomer(customerId, before, input.limit + 1);
    return pageFrom(rows, input.limit, (o) => [o.id]);
  }).pipe(withSpan("commerce.listOrders"));
