/**
 * The OrdersRepository port over `shop_orders`, `shop_order_lines`, `shop_order_timeline`,
 * `shop_order_payments`, `shop_shipments`, `shop_returns` and `shop_checkout_requests`. Orders
 * move only by conditional status updates; lines and the timeline are append-only tables.
 */
import { createHash } from "node:crypto";
import { Effect, Schema } from "effect";
import { sql } from "kysely";
import { CheckoutRequest } from "../../../core/commerce/model/CheckoutRequest.js";
import { Order, OrderLine, OrderTimelineEntry, ShippingAddress } from "../../../core/commerce/model/Order.js";
import { FulfillmentTask } from "../../../core/commerce/model/FulfillmentTask.js";
import { OrderNote } from "../../../core/commerce/model/OrderNote.js";
import { OrderPayment } from "../../../core/commerce/model/OrderPayment.js";
import { Return } from "../../../core/commerce/model/Return.js";
import { Shipment } from "../../../core/commerce/model/Shipment.js";
import type { FieldSealer } from "../../../ports/commerce/FieldSealer.js";
import type { OrdersRepository } from "../../../ports/commerce/OrdersRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledPerListLength, runQuery, runStatement, sendEach, sendStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const isAddress = Schema.is(ShippingAddress);

/** Builds the order repository over `db`. */
export const makeSqlOrdersRepository = (db: SqlDatabase, sealer: FieldSealer): OrdersRepository => {
  const f = featuresFor(db);
  const requests = rowCodec(CheckoutRequest, f);
  const orders = rowCodec(Order, f);
  const lines = rowCodec(OrderLine, f);
  const insertLine = compiledInsert("shop_order_lines", lines);
  const timeline = rowCodec(OrderTimelineEntry, f);
  const payments = rowCodec(OrderPayment, f);
  const shipments = rowCodec(Shipment, f);
  const returns = rowCodec(Return, f);
  const tasks = rowCodec(FulfillmentTask, f);
  const notes = rowCodec(OrderNote, f);
  const insertNote = compiledInsert("shop_order_notes", notes);
  // The address and e-mail are sealed at rest; the record the core sees is plain.
  const orderToRow = (order: Order) => ({
    ...orders.toRow(order),
    shipping_address: sealer.seal(JSON.stringify(order.shippingAddress)),
    email: order.email === null ? null : sealer.seal(order.email),
  });
  const orderFromRow = (row: Readonly<Record<string, unknown>>): Order =>
    orders.fromRow({
      ...row,
      shipping_address: JSON.parse(sealer.open(String(row.shipping_address))),
      email: row.email === null || row.email === undefined ? null : sealer.open(String(row.email)),
    });
  // The statements of checkout and of the order's payment, compiled once.
  const insertCheckoutRequest = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_checkout_requests")
      .values(slotsOf(requests.columns, p))
      .onConflict((oc) => oc.columns(["scope", "idempotency_key"]).doNothing()),
  );
  const selectCheckoutRequest = compiledOnce<{ scope: string; idempotencyKey: string }>((ex, p) =>
    ex.selectFrom("shop_checkout_requests").selectAll().where("scope", "=", p("scope")).where("idempotency_key", "=", p("idempotencyKey")),
  );
  const insertOrder = compiledInsert("shop_orders", { ...orders, toRow: orderToRow });
  const selectOrder = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_orders").selectAll().where("id", "=", p("id")));
  const selectLinesOfOrder = compiledOnce<{ orderId: string }>((ex, p) =>
    ex.selectFrom("shop_order_lines").selectAll().where("order_id", "=", p("orderId")).orderBy("id"),
  );
  // One statement per count of `from` statuses, with and without the payment intent's reference.
  const updateOrderStatus = (setsIntentRef: boolean) =>
    compiledPerListLength<{ id: string; to: string; at: unknown; paymentIntentRef: string | undefined }>((ex, p, from) =>
      ex
        .updateTable("shop_orders")
        .set((eb) => ({
          status: p("to"),
          version: eb("version", "+", 1),
          updated_at: p("at"),
          ...(setsIntentRef ? { payment_intent_ref: p("paymentIntentRef") } : {}),
        }))
        .where("id", "=", p("id"))
        .where("status", "in", [...from])
        .returningAll(),
    );
  const updateOrderStatusOnly = updateOrderStatus(false);
  const updateOrderStatusAndIntent = updateOrderStatus(true);
  const insertTimelineEntry = compiledInsert("shop_order_timeline", timeline);
  // A page of the timeline: with or without a cursor, with or without the warehouse's entries. The
  // shopper's filter is this literal text, the predicate of migration 28's partial index.
  const selectTimelinePage = (after: boolean, withFulfillment: boolean) =>
    compiledOnce<{ orderId: string; afterId: string | null; limit: number }>((ex, p) => {
      let query = ex.selectFrom("shop_order_timeline").selectAll().where("order_id", "=", p("orderId"));
      if (after) query = query.where("id", ">", p("afterId"));
      if (!withFulfillment) query = query.where(sql<boolean>`kind NOT LIKE 'fulfillment.%'`);
      return query.orderBy("id").limit(p("limit"));
    });
  const timelinePages = {
    first: { staff: selectTimelinePage(false, true), shopper: selectTimelinePage(false, false) },
    next: { staff: selectTimelinePage(true, true), shopper: selectTimelinePage(true, false) },
  };
  const insertPayment = compiledInsert("shop_order_payments", payments);
  const selectPayment = compiledOnce<{ orderId: string }>((ex, p) => ex.selectFrom("shop_order_payments").selectAll().where("order_id", "=", p("orderId")));
  // Conditional on the status the writer read: an old copy of the record moves nothing.
  const updatePayment = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .updateTable("shop_order_payments")
      .set(slotsOf(payments.columns.filter((column) => column !== "order_id"), p))
      .where("order_id", "=", p("order_id"))
      .where("status", "=", p("from_status")),
  );
  // An increment, never a read then a write of the whole row: two return refunds at once both count.
  const addRefundedMinor = compiledOnce<{ orderId: string; amountMinor: number; at: unknown }>((ex, p) =>
    ex
      .updateTable("shop_order_payments")
      .set({ refunded_minor: sql`refunded_minor + ${p("amountMinor")}`, updated_at: p("at") })
      .where("order_id", "=", p("orderId")),
  );
  const insertEventReceipt = compiledOnce<{ consumer: string; eventId: string; at: unknown }>((ex, p) =>
    ex
      .insertInto("shop_event_receipts")
      .values({ consumer: p("consumer"), event_id: p("eventId"), received_at: p("at") })
      .onConflict((oc) => oc.columns(["consumer", "event_id"]).doNothing()),
  );
  const insertFulfillmentTask = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_fulfillment_tasks")
      .values(slotsOf(tasks.columns, p))
      .onConflict((oc) => oc.column("order_id").doNothing()),
  );
  const selectOrderLocked = compiledOnce<{ id: string }>((ex, p) => lockRow(db, ex.selectFrom("shop_orders").select("id").where("id", "=", p("id")), true));
  // The other whole-record inserts.
  // A tracking number names one parcel of its carrier (migration 8): a second use inserts nothing.
  const insertShipment = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_shipments")
      .values(slotsOf(shipments.columns, p))
      .onConflict((oc) => oc.columns(["carrier", "tracking_number"]).doNothing()),
  );
  const insertReturn = compiledInsert("shop_returns", returns);
  // The first return of a line inserts its count; later ones add to it only within the line's quantity.
  const claimReturnedQuantity = compiledOnce<{ orderLineId: string; quantity: number }>((ex, p) =>
    ex
      .insertInto("shop_order_line_returns")
      .columns(["order_line_id", "store_id", "order_id", "line_quantity", "returned_quantity"])
      .expression(
        ex
          .selectFrom("shop_order_lines")
          .select(["id", "store_id", "order_id", "quantity", sql<number>`cast(${p("quantity")} as integer)`.as("returned")])
          .where("id", "=", p("orderLineId"))
          .where("quantity", ">=", p("quantity")),
      )
      .onConflict((oc) =>
        oc
          .column("order_line_id")
          .doUpdateSet({ returned_quantity: sql`shop_order_line_returns.returned_quantity + excluded.returned_quantity` })
          .where(sql<boolean>`shop_order_line_returns.returned_quantity + excluded.returned_quantity <= shop_order_line_returns.line_quantity`),
      ),
  );
  // A return's conditional stage move (on its status, and its refund attempt when given); the return after, or null.
  const moveReturn = (id: string, from: string, to: string, now: Date, attempt?: { readonly attempt: number; readonly nextAttempt?: boolean }) =>
    Effect.gen(function* () {
      const updated = yield* runQuery(db, (ex) => {
        let q = ex
          .updateTable("shop_returns")
          .set((eb) => ({
            status: to,
            version: eb("version", "+", 1),
            updated_at: f.timeToDb(now),
            ...(attempt?.nextAttempt === true ? { refund_attempt: attempt.attempt + 1 } : {}),
          }))
          .where("id", "=", id)
          .where("status", "=", from);
        if (attempt !== undefined) q = q.where("refund_attempt", "=", attempt.attempt);
        return q.executeTakeFirst();
      });
      if (toNumber(updated.numUpdatedRows) === 0) return null;
      const row = yield* runQuery(db, (ex) => ex.selectFrom("shop_returns").selectAll().where("id", "=", id).executeTakeFirstOrThrow());
      return returns.fromRow(row);
    });
  const findOrder: OrdersRepository["findOrder"] = (id) =>
    runStatement(db, selectOrder, { id }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : orderFromRow(r))));
  return {
    claimCheckout: (request, payload) =>
      Effect.gen(function* () {
        const payloadHash = createHash("sha256").update(payload).digest("hex");
        const inserted = yield* runStatement(db, insertCheckoutRequest, requests.toRow({ ...request, payloadHash }));
        if (toNumber(inserted.numAffectedRows ?? 0) > 0) return { claimed: true as const };
        const { rows: [row] } = yield* runStatement(db, selectCheckoutRequest, { scope: request.scope, idempotencyKey: request.idempotencyKey });
        if (row === undefined) return yield* Effect.die(new Error("checkout request: neither inserted nor found"));
        const existing = requests.fromRow(row);
        return { claimed: false as const, existing, samePayload: existing.payloadHash === payloadHash };
      }).pipe(withSpan("OrdersRepository.claimCheckout")),
    insertOrder: (order, orderLines) =>
      Effect.gen(function* () {
        // The new order and its lines under their fresh ids, a row per compiled statement,
        // unanswered: nobody reads them back here (pipelined on Postgres).
        yield* sendStatement(db, insertOrder, order);
        yield* sendEach(db, insertLine, orderLines);
      }).pipe(withSpan("OrdersRepository.insertOrder")),
    findOrder,
    linesOf: (orderId) =>
      runStatement(db, selectLinesOfOrder, { orderId }).pipe(
        Effect.map(({ rows }) => rows.map(lines.fromRow)),
      ),
    transitionOrder: (id, from, to, now, change = {}) =>
      // RETURNING answers the order after the move in the same statement (no second read).
      runStatement(db, change.paymentIntentRef === undefined ? updateOrderStatusOnly : updateOrderStatusAndIntent, {
        id,
        to,
        at: f.timeToDb(now),
        paymentIntentRef: change.paymentIntentRef,
        list: from,
      }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : orderFromRow(row))),
        withSpan("OrdersRepository.transitionOrder"),
      ),
    ordersOfCustomer: (customerId, beforeId, limit) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("shop_orders").selectAll().where("customer_id", "=", customerId);
        if (beforeId !== null) q = q.where("id", "<", beforeId);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(orderFromRow))),
    appendTimeline: (entry) =>
      sendStatement(db, insertTimelineEntry, entry),
    timelinePage: (orderId, query) =>
      runStatement(db, timelinePages[query.afterId === null ? "first" : "next"][query.withFulfillment ? "staff" : "shopper"], {
        orderId,
        afterId: query.afterId,
        limit: query.limit,
      }).pipe(Effect.map(({ rows }) => rows.map(timeline.fromRow))),
    insertNote: (note) => runStatement(db, insertNote, note).pipe(Effect.asVoid),
    notesOf: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_order_notes").selectAll().where("order_id", "=", orderId).orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(notes.fromRow)),
      ),
    notesNamed: (orderId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("shop_order_notes").selectAll().where("order_id", "=", orderId).where("id", "in", [...ids]).execute()).pipe(
            Effect.map((rows) => rows.map(notes.fromRow)),
          ),
    // The order's payment record and its shipments: nobody reads these answers or maps their failure (unanswered on Postgres).
    insertPayment: (payment) => sendStatement(db, insertPayment, payment),
    findPayment: (orderId) =>
      runStatement(db, selectPayment, { orderId }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : payments.fromRow(r))),
      ),
    updatePayment: (payment, from) =>
      runStatement(db, updatePayment, { ...payments.toRow(payment), from_status: from }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    addRefundedMinor: (orderId, amountMinor, at) => sendStatement(db, addRefundedMinor, { orderId, amountMinor, at: f.timeToDb(at) }),
    insertShipment: (shipment) =>
      runStatement(db, insertShipment, shipments.toRow(shipment)).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    shipmentsOf: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_shipments").selectAll().where("order_id", "=", orderId).orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(shipments.fromRow)),
      ),
    findShipmentByTracking: (carrier, trackingNumber) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("shop_shipments")
          .selectAll()
          .where("carrier", "=", carrier)
          .where("tracking_number", "=", trackingNumber)
          .where("status", "in", ["dispatched", "delivered"])
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : shipments.fromRow(r)))),
    markShipmentDelivered: (id) =>
      runQuery(db, (ex) => ex.updateTable("shop_shipments").set({ status: "delivered" }).where("id", "=", id).where("status", "=", "dispatched").executeTakeFirst()).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) > 0),
      ),
    shipmentsInTransit: (afterId, limit) =>
      runQuery(db, (ex) => {
        const q = ex.selectFrom("shop_shipments").selectAll().where("status", "=", "dispatched");
        return (afterId === null ? q : q.where("id", ">", afterId)).orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(shipments.fromRow))),
    insertReturn: (ret) => runStatement(db, insertReturn, ret).pipe(Effect.asVoid),
    claimReturnedQuantity: (orderLineId, quantity) =>
      runStatement(db, claimReturnedQuantity, { orderLineId, quantity }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    findReturn: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_returns").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : returns.fromRow(r))),
      ),
    transitionReturn: (id, from, to, now) => moveReturn(id, from, to, now).pipe(withSpan("OrdersRepository.transitionReturn")),
    failReturnRefund: (id, attempt, now) => moveReturn(id, "refund_requested", "refund_failed", now, { attempt }).pipe(withSpan("OrdersRepository.failReturnRefund")),
    requestReturnRefundAgain: (id, attempt, now) =>
      moveReturn(id, "refund_failed", "refund_requested", now, { attempt, nextAttempt: true }).pipe(withSpan("OrdersRepository.requestReturnRefundAgain")),
    redactGuestOrders: (before, limit, now) =>
      Effect.gen(function* () {
        const rows = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("shop_orders")
            .select(["id", "shipping_address"])
            .where("customer_id", "is", null)
            .where("status", "in", ["failed", "expired", "cancelled", "dispatched"])
            .where("updated_at", "<", f.timeToDb(before))
            // Marked when done (an order without an e-mail has its address minimized too).
            .where("minimized_at", "is", null)
            .orderBy("updated_at")
            .limit(limit)
            .execute(),
        );
        for (const row of rows) {
          const address: unknown = JSON.parse(sealer.open(String(row.shipping_address)));
          const country = isAddress(address) ? address.country : "";
          const minimized: ShippingAddress = { name: "", line1: "", line2: null, city: "", postcode: "", country };
          yield* runQuery(db, (ex) =>
            ex
              .updateTable("shop_orders")
              .set({ email: null, shipping_address: sealer.seal(JSON.stringify(minimized)), minimized_at: f.timeToDb(now) })
              .where("id", "=", String(row.id))
              .execute(),
          );
          // The guest's free text: the notes its timeline refers to, and its returns' reasons.
          yield* runQuery(db, (ex) =>
            ex
              .updateTable("shop_order_notes")
              .set({ body: null, cleared_at: f.timeToDb(now) })
              .where("order_id", "=", String(row.id))
              .where("body", "is not", null)
              .execute(),
          );
          yield* runQuery(db, (ex) =>
            ex.updateTable("shop_returns").set({ reason: null }).where("order_id", "=", String(row.id)).where("reason", "is not", null).execute(),
          );
        }
        return rows.length;
      }).pipe(withSpan("OrdersRepository.redactGuestOrders")),
    receiveEvent: (consumer, eventId, at) =>
      runStatement(db, insertEventReceipt, { consumer, eventId, at: f.timeToDb(at) }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
      ),
    insertFulfillmentTask: (task) =>
      runStatement(db, insertFulfillmentTask, tasks.toRow(task)).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    fulfillmentTasks: (storeId, query) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("shop_fulfillment_tasks").selectAll().where("store_id", "=", storeId).where("status", "=", query.status);
        const availableTo = query.availableTo;
        if (availableTo !== undefined) q = q.where((eb) => eb.or([eb("assignee_id", "=", availableTo), eb("assignee_id", "is", null)]));
        if (query.assignedTo !== undefined) q = q.where("assignee_id", "=", query.assignedTo);
        if (query.afterId !== null) q = q.where("id", ">", query.afterId);
        return q.orderBy("id").limit(query.limit).execute();
      }).pipe(Effect.map((rows) => rows.map(tasks.fromRow))),
    findFulfillmentTask: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_fulfillment_tasks").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : tasks.fromRow(r))),
      ),
    fulfillmentTaskOfOrder: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_fulfillment_tasks").selectAll().where("order_id", "=", orderId).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : tasks.fromRow(r))),
      ),
    moveFulfillmentTaskAssignee: (id, from, to, at) =>
      // One conditional statement: of racing takes (each from null), the first to write wins and
      // the others match no row; RETURNING answers the task after the move.
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_fulfillment_tasks")
          .set({ assignee_id: to, assigned_at: to === null ? null : f.timeToDb(at) })
          .where("id", "=", id)
          .where("status", "=", "open")
          .where("assignee_id", from === null ? "is" : "=", from)
          .returningAll()
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => (r === undefined ? null : tasks.fromRow(r))),
        withSpan("OrdersRepository.moveFulfillmentTaskAssignee"),
      ),
    completeFulfillmentTask: (orderId) =>
      runQuery(db, (ex) => ex.updateTable("shop_fulfillment_tasks").set({ status: "done" }).where("order_id", "=", orderId).execute()).pipe(
        Effect.asVoid,
      ),
    lockOrder: (id) =>
      runStatement(db, selectOrderLocked, { id }).pipe(Effect.asVoid),
    returnsOf: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_returns").selectAll().where("order_id", "=", orderId).orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(returns.fromRow)),
      ),
    returnsNamed: (orderId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("shop_returns").selectAll().where("order_id", "=", orderId).where("id", "in", [...ids]).execute()).pipe(
            Effect.map((rows) => rows.map(returns.fromRow)),
          ),
  };
};
