/** The OrdersRepository port over dl_quotes, dl_quote_placements, dl_orders, dl_order_lines and dl_restaurant_orders. */
import { Effect } from "effect";
import { sql } from "kysely";
import { Order } from "../../../core/delivery/model/Order.js";
import { redactedDropoffAddress } from "../../../core/delivery/model/PriceSnapshot.js";
import { OrderLine } from "../../../core/delivery/model/OrderLine.js";
import { Quote } from "../../../core/delivery/model/Quote.js";
import { QuotePlacement, redactedPaymentMethod } from "../../../core/delivery/model/QuotePlacement.js";
import { RestaurantOrder } from "../../../core/delivery/model/RestaurantOrder.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledUpdateIfVersion, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the orders repository over `db`. */
export const makeSqlOrdersRepository = (db: SqlDatabase): OrdersRepository => {
  const f = featuresFor(db);
  const quotes = rowCodec(Quote, f);
  const orders = rowCodec(Order, f);
  const lines = rowCodec(OrderLine, f);
  const placements = rowCodec(QuotePlacement, f);
  const workflows = rowCodec(RestaurantOrder, f);
  // The statements of quoting, placing, reading an order and moving its workflow, compiled once;
  // the order lines' insert has one row per line, so it is built per call.
  const insertQuote = compiledInsert("dl_quotes", quotes);
  const selectQuote = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_quotes").selectAll().where("id", "=", p("id")));
  const insertPlacementIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_quote_placements")
      .values(slotsOf(placements.columns, p))
      .onConflict((oc) => oc.column("quote_id").doNothing()),
  );
  const selectPlacement = compiledOnce<{ quoteId: string }>((ex, p) => ex.selectFrom("dl_quote_placements").selectAll().where("quote_id", "=", p("quoteId")));
  const finishPlacementIfAuthorizing = compiledOnce<{ quoteId: string; state: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("dl_quote_placements")
      .set({ state: p("state"), updated_at: p("at") })
      .where("quote_id", "=", p("quoteId"))
      .where("state", "=", "authorizing"),
  );
  const insertOrderIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_orders")
      .values(slotsOf(orders.columns, p))
      .onConflict((oc) => oc.column("quote_id").doNothing()),
  );
  const insertWorkflow = compiledInsert("dl_restaurant_orders", workflows);
  const selectOrder = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_orders").selectAll().where("id", "=", p("id")));
  const selectOrderByQuote = compiledOnce<{ quoteId: string }>((ex, p) => ex.selectFrom("dl_orders").selectAll().where("quote_id", "=", p("quoteId")));
  const selectLines = compiledOnce<{ orderId: string }>((ex, p) => ex.selectFrom("dl_order_lines").selectAll().where("order_id", "=", p("orderId")).orderBy("line_no"));
  const selectWorkflow = compiledOnce<{ orderId: string }>((ex, p) => ex.selectFrom("dl_restaurant_orders").selectAll().where("order_id", "=", p("orderId")));
  const selectWorkflowForUpdate = compiledOnce<{ orderId: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("dl_restaurant_orders").selectAll().where("order_id", "=", p("orderId")), true),
  );
  const updateWorkflowIfVersion = compiledUpdateIfVersion("dl_restaurant_orders", workflows, { key: ["order_id"] });
  return {
    insertQuote: (quote) =>
      runStatement(db, insertQuote, quote).pipe(
        Effect.asVoid,
        withSpan("OrdersRepository.insertQuote"),
      ),
    findQuote: (id) =>
      runStatement(db, selectQuote, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : quotes.fromRow(row))),
      ),
    startPlacement: (placement) =>
      runQuery(db, async (ex) => {
        const inserted = await insertPlacementIfNew(ex, placements.toRow(placement));
        if (toNumber(inserted.numAffectedRows ?? 0) === 1) return { placement, started: true };
        const { rows: [row] } = await selectPlacement(ex, { quoteId: placement.quoteId });
        if (row === undefined) throw new Error(`placement of quote ${placement.quoteId} neither written nor found`);
        return { placement: placements.fromRow(row), started: false };
      }).pipe(withSpan("OrdersRepository.startPlacement")),
    findPlacement: (quoteId) =>
      runStatement(db, selectPlacement, { quoteId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : placements.fromRow(row))),
      ),
    confirmRelease: (quoteId, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_quote_placements")
          .set({ release_confirmed_at: f.timeToDb(at) })
          .where("quote_id", "=", quoteId)
          .where("state", "=", "released")
          .where("release_confirmed_at", "is", null)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows ?? 0) === 1),
        withSpan("OrdersRepository.confirmRelease"),
      ),
    redactSettledPaymentMethods: () => {
      // The same conditions as delivery migration 16 allows; the literal lets its partial index serve the pass.
      const masked = sql.lit(redactedPaymentMethod);
      return runQuery(db, (ex) =>
        sql`UPDATE dl_quote_placements SET payment_method = ${masked}
          WHERE payment_method <> ${masked} AND (
            (state = 'released' AND release_confirmed_at IS NOT NULL)
            OR (state = 'placed' AND EXISTS (
              SELECT 1 FROM dl_orders o JOIN dl_restaurant_orders w ON w.order_id = o.id
              WHERE o.quote_id = dl_quote_placements.quote_id AND w.payment_state IN ('captured', 'voided', 'declined'))))`.execute(ex),
      ).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0)),
        withSpan("OrdersRepository.redactSettledPaymentMethods"),
      );
    },
    finishPlacement: (quoteId, to, at) =>
      runStatement(db, finishPlacementIfAuthorizing, { quoteId, state: to, at: f.timeToDb(at) }).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0) === 1),
        withSpan("OrdersRepository.finishPlacement"),
      ),
    insertOrder: (order, orderLines, workflow) =>
      runQuery(db, async (ex) => {
        // One order per quote: the unique quote_id decides between concurrent placements.
        const inserted = await insertOrderIfNew(ex, orders.toRow(order));
        if (toNumber(inserted.numAffectedRows ?? 0) !== 1) return "exists" as const;
        if (orderLines.length > 0) await ex.insertInto("dl_order_lines").values(orderLines.map(lines.toRow)).execute();
        await insertWorkflow(ex, workflow);
        return "inserted" as const;
      }).pipe(withSpan("OrdersRepository.insertOrder")),
    findOrder: (id) =>
      runStatement(db, selectOrder, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : orders.fromRow(row))),
      ),
    findOrderByQuote: (quoteId) =>
      runStatement(db, selectOrderByQuote, { quoteId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : orders.fromRow(row))),
      ),
    orderLines: (orderId) =>
      runStatement(db, selectLines, { orderId }).pipe(
        Effect.map(({ rows }) => rows.map(lines.fromRow)),
      ),
    findWorkflow: (orderId, options) =>
      // FOR UPDATE on Postgres only when asked (lockRow).
      runQuery(db, (ex) => (options?.forUpdate === true ? selectWorkflowForUpdate : selectWorkflow)(ex, { orderId })).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : workflows.fromRow(row))),
      ),
    listWorkflows: ({ restaurantId, statuses, afterOrderId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("dl_restaurant_orders").selectAll().where("restaurant_id", "=", restaurantId).where("status", "in", [...statuses]);
        if (afterOrderId !== null) query = query.where("order_id", ">", afterOrderId);
        return query.orderBy("order_id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(workflows.fromRow))),
    updateWorkflow: (next, expectedVersion) =>
      runStatement(db, updateWorkflowIfVersion, { record: next, expectedVersion }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) === 1),
        withSpan("OrdersRepository.updateWorkflow"),
      ),
    redactDropoffsFinishedBefore: (finishedBefore) => {
      // The same expressions as delivery migration 11 checks; the masked literal (not a parameter)
      // lets the partial indexes dl_quotes_dropoff_kept and dl_orders_dropoff_kept serve the pass.
      const masked = sql.lit(redactedDropoffAddress);
      const before = f.timeToDb(finishedBefore);
      const redact = sql`SET dropoff_lat = round(dropoff_lat * 1000) / 1000, dropoff_lng = round(dropoff_lng * 1000) / 1000, dropoff_address = ${masked}`;
      // An order is finished when its delivery ended, or when it was rejected or cancelled without one.
      const finished = (order: string) => sql`(
        EXISTS (SELECT 1 FROM dl_deliveries d WHERE d.order_id = ${sql.raw(order)} AND d.status IN ('delivered', 'cancelled') AND d.updated_at < ${before})
        OR EXISTS (SELECT 1 FROM dl_restaurant_orders w WHERE w.order_id = ${sql.raw(order)} AND w.status IN ('rejected', 'cancelled') AND w.delivery_id IS NULL AND w.updated_at < ${before}))`;
      return runQuery(db, async (ex) => {
        const quotes = await sql`UPDATE dl_quotes ${redact}
          WHERE dropoff_address <> ${masked} AND (
            EXISTS (SELECT 1 FROM dl_orders o WHERE o.quote_id = dl_quotes.id AND ${finished("o.id")})
            OR (expires_at < ${before}
              AND NOT EXISTS (SELECT 1 FROM dl_orders o WHERE o.quote_id = dl_quotes.id)
              AND NOT EXISTS (SELECT 1 FROM dl_quote_placements p WHERE p.quote_id = dl_quotes.id AND p.state = 'authorizing')))`.execute(ex);
        const orders = await sql`UPDATE dl_orders ${redact} WHERE dropoff_address <> ${masked} AND ${finished("dl_orders.id")}`.execute(ex);
        return toNumber(quotes.numAffectedRows ?? 0) + toNumber(orders.numAffectedRows ?? 0);
      }).pipe(withSpan("OrdersRepository.redactDropoffsFinishedBefore"));
    },
    recordPaymentReplay: (replay) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("dl_payment_replays")
          .values({
            id: replay.id,
            job_id: replay.jobId,
            step: replay.step,
            order_id: replay.orderId,
            quote_id: replay.quoteId,
            actor_id: replay.actorId,
            reason: replay.reason,
            at: f.timeToDb(replay.at),
          })
          .execute(),
      ).pipe(Effect.asVoid, withSpan("OrdersRepository.recordPaymentReplay")),
  };
};
