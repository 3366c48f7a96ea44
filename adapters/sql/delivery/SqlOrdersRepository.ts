/** The OrdersRepository port over dl_quotes, dl_orders, dl_order_lines and dl_restaurant_orders. */
import { Effect } from "effect";
import { Order } from "../../../core/delivery/model/Order.js";
import { OrderLine } from "../../../core/delivery/model/OrderLine.js";
import { Quote } from "../../../core/delivery/model/Quote.js";
import { RestaurantOrder } from "../../../core/delivery/model/RestaurantOrder.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the orders repository over `db`. */
export const makeSqlOrdersRepository = (db: SqlDatabase): OrdersRepository => {
  const f = featuresFor(db);
  const quotes = rowCodec(Quote, f);
  const orders = rowCodec(Order, f);
  const lines = rowCodec(OrderLine, f);
  const workflows = rowCodec(RestaurantOrder, f);
  return {
    insertQuote: (quote) =>
      runQuery(db, (ex) => ex.insertInto("dl_quotes").values(quotes.toRow(quote)).execute()).pipe(
        Effect.asVoid,
        withSpan("OrdersRepository.insertQuote"),
      ),
    findQuote: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_quotes").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : quotes.fromRow(row))),
      ),
    insertOrder: (order, orderLines, workflow) =>
      runQuery(db, async (ex) => {
        // One order per quote: the unique quote_id decides between concurrent placements.
        const inserted = await ex
          .insertInto("dl_orders")
          .values(orders.toRow(order))
          .onConflict((oc) => oc.column("quote_id").doNothing())
          .executeTakeFirst();
        if (toNumber(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return "exists" as const;
        if (orderLines.length > 0) await ex.insertInto("dl_order_lines").values(orderLines.map(lines.toRow)).execute();
        await ex.insertInto("dl_restaurant_orders").values(workflows.toRow(workflow)).execute();
        return "inserted" as const;
      }).pipe(withSpan("OrdersRepository.insertOrder")),
    findOrder: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_orders").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : orders.fromRow(row))),
      ),
    findOrderByQuote: (quoteId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_orders").selectAll().where("quote_id", "=", quoteId).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : orders.fromRow(row))),
      ),
    orderLines: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_order_lines").selectAll().where("order_id", "=", orderId).orderBy("line_no").execute()).pipe(
        Effect.map((rows) => rows.map(lines.fromRow)),
      ),
    findWorkflow: (orderId, options) =>
      runQuery(db, (ex) =>
        lockRow(db, ex.selectFrom("dl_restaurant_orders").selectAll().where("order_id", "=", orderId), options?.forUpdate).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : workflows.fromRow(row)))),
    listWorkflows: ({ restaurantId, statuses, afterOrderId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("dl_restaurant_orders").selectAll().where("restaurant_id", "=", restaurantId).where("status", "in", [...statuses]);
        if (afterOrderId !== null) query = query.where("order_id", ">", afterOrderId);
        return query.orderBy("order_id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(workflows.fromRow))),
    updateWorkflow: (next, expectedVersion) =>
      runQuery(db, (ex) => {
        const { order_id: _id, ...columns } = workflows.toRow(next);
        return ex
          .updateTable("dl_restaurant_orders")
          .set(columns)
          .where("order_id", "=", next.orderId)
          .where("version", "=", expectedVersion)
          .executeTakeFirst();
      }).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) === 1),
        withSpan("OrdersRepository.updateWorkflow"),
      ),
  };
};
