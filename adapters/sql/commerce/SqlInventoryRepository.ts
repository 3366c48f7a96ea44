/**
 * The InventoryRepository port over `shop_inventory`, `shop_stock_adjustments` and
 * `shop_reservations`. Each stock change is one conditional UPDATE: a reservation only where
 * enough is available, an adjustment only where on_hand stays at least reserved, and a
 * reservation's status only from the status the caller saw — so concurrent checkouts, expiry
 * and cancellation are decided by the database (and the CHECK on `reserved` backs it).
 */
import { Effect } from "effect";
import { Reservation } from "../../../core/commerce/model/Reservation.js";
import { maxOnHand, StockAdjustment, StockLevel } from "../../../core/commerce/model/StockLevel.js";
import type { InventoryRepository } from "../../../ports/commerce/InventoryRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledPerListLength, runQuery, runStatement, sendEach, sendStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the inventory repository over `db`. */
export const makeSqlInventoryRepository = (db: SqlDatabase): InventoryRepository => {
  const f = featuresFor(db);
  const stock = rowCodec(StockLevel, f);
  const adjustments = rowCodec(StockAdjustment, f);
  const reservations = rowCodec(Reservation, f);
  // The stock reads and conditional updates of checkout, expiry and fulfillment, compiled once.
  const selectStock = compiledOnce<{ variantId: string; locationId: string }>((ex, p) =>
    ex.selectFrom("shop_inventory").selectAll().where("variant_id", "=", p("variantId")).where("location_id", "=", p("locationId")),
  );
  const selectStockOfVariants = compiledPerListLength<Record<never, never>>((ex, _p, variantIds) =>
    ex.selectFrom("shop_inventory").selectAll().where("variant_id", "in", [...variantIds]).orderBy("location_id"),
  );
  const insertStockIfAbsent = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_inventory")
      .values(slotsOf(stock.columns, p))
      .onConflict((oc) => oc.columns(["variant_id", "location_id"]).doNothing()),
  );
  const updateOnHand = compiledOnce<{ variantId: string; locationId: string; storeId: string; delta: number; at: unknown }>((ex, p) =>
    ex
      .updateTable("shop_inventory")
      .set((eb) => ({
        on_hand: eb("on_hand", "+", p("delta")),
        version: eb("version", "+", 1),
        updated_at: p("at"),
      }))
      .where("variant_id", "=", p("variantId"))
      .where("location_id", "=", p("locationId"))
      .where("store_id", "=", p("storeId"))
      .where((eb) => eb(eb("on_hand", "+", p("delta")), ">=", eb.ref("reserved")))
      // Within what a location holds (both figures are at most maxOnHand, so the sum stays a 32-bit integer).
      .where((eb) => eb(eb("on_hand", "+", p("delta")), "<=", maxOnHand)),
  );
  type StockChange = { variantId: string; locationId: string; quantity: number; at: unknown };
  const updateReservedIfAvailable = compiledOnce<StockChange>((ex, p) =>
    ex
      .updateTable("shop_inventory")
      .set((eb) => ({ reserved: eb("reserved", "+", p("quantity")), version: eb("version", "+", 1), updated_at: p("at") }))
      .where("variant_id", "=", p("variantId"))
      .where("location_id", "=", p("locationId"))
      .where((eb) => eb(eb("on_hand", "-", eb.ref("reserved")), ">=", p("quantity"))),
  );
  const updateUnreserve = compiledOnce<StockChange>((ex, p) =>
    ex
      .updateTable("shop_inventory")
      .set((eb) => ({ reserved: eb("reserved", "-", p("quantity")), version: eb("version", "+", 1), updated_at: p("at") }))
      .where("variant_id", "=", p("variantId"))
      .where("location_id", "=", p("locationId")),
  );
  const updateConsume = compiledOnce<StockChange>((ex, p) =>
    ex
      .updateTable("shop_inventory")
      .set((eb) => ({
        on_hand: eb("on_hand", "-", p("quantity")),
        reserved: eb("reserved", "-", p("quantity")),
        version: eb("version", "+", 1),
        updated_at: p("at"),
      }))
      .where("variant_id", "=", p("variantId"))
      .where("location_id", "=", p("locationId")),
  );
  const insertAdjustment = compiledInsert("shop_stock_adjustments", adjustments);
  // A checkout's reservations, a row per compiled statement, unanswered (pipelined on Postgres).
  const insertReservation = compiledInsert("shop_reservations", reservations);
  const selectReservation = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_reservations").selectAll().where("id", "=", p("id")));
  const selectReservationsOfOrder = compiledOnce<{ orderId: string }>((ex, p) =>
    ex.selectFrom("shop_reservations").selectAll().where("order_id", "=", p("orderId")).orderBy("id"),
  );
  // One statement per count of `from` statuses.
  const updateReservationStatus = compiledPerListLength<{ id: string; to: string; at: unknown }>((ex, p, from) =>
    ex
      .updateTable("shop_reservations")
      .set({ status: p("to"), updated_at: p("at") })
      .where("id", "=", p("id"))
      .where("status", "in", [...from]),
  );
  const updateReservationStatusOfOrder = compiledPerListLength<{ orderId: string; to: string; at: unknown }>((ex, p, from) =>
    ex
      .updateTable("shop_reservations")
      .set({ status: p("to"), updated_at: p("at") })
      .where("order_id", "=", p("orderId"))
      .where("status", "in", [...from]),
  );
  const findStock: InventoryRepository["findStock"] = (variantId, locationId) =>
    runStatement(db, selectStock, { variantId, locationId }).pipe(
      Effect.map(({ rows: [r] }) => (r === undefined ? null : stock.fromRow(r))),
    );
  return {
    findStock,
    stockOf: (variantIds) =>
      variantIds.length === 0
        ? Effect.succeed([])
        : runStatement(db, selectStockOfVariants, { list: variantIds }).pipe(Effect.map(({ rows }) => rows.map(stock.fromRow))),
    adjust: ({ storeId, variantId, locationId, delta, now }) =>
      Effect.gen(function* () {
        yield* runStatement(db, insertStockIfAbsent, stock.toRow({ storeId, variantId, locationId, onHand: 0, reserved: 0, version: 1, updatedAt: now }));
        const updated = yield* runStatement(db, updateOnHand, { variantId, locationId, storeId, delta, at: f.timeToDb(now) });
        if (toNumber(updated.numAffectedRows ?? 0) === 0) return null;
        return yield* findStock(variantId, locationId);
      }).pipe(withSpan("InventoryRepository.adjust")),
    insertAdjustment: (a) =>
      sendStatement(db, insertAdjustment, a),
    reserve: (variantId, locationId, quantity, now) =>
      runStatement(db, updateReservedIfAvailable, { variantId, locationId, quantity, at: f.timeToDb(now) }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
        withSpan("InventoryRepository.reserve"),
      ),
    // Decided by the caller under its reservation; the stock's CHECKs make any miscount a defect.
    // Nobody reads these answers (unanswered on Postgres).
    unreserve: (variantId, locationId, quantity, now) =>
      sendStatement(db, updateUnreserve, { variantId, locationId, quantity, at: f.timeToDb(now) }),
    consume: (variantId, locationId, quantity, now) =>
      sendStatement(db, updateConsume, { variantId, locationId, quantity, at: f.timeToDb(now) }),
    insertReservations: (made) => sendEach(db, insertReservation, made),
    findReservation: (id) =>
      runStatement(db, selectReservation, { id }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : reservations.fromRow(r))),
      ),
    reservationsOfOrder: (orderId) =>
      runStatement(db, selectReservationsOfOrder, { orderId }).pipe(
        Effect.map(({ rows }) => rows.map(reservations.fromRow)),
      ),
    transitionReservation: (id, from, to, now) =>
      runStatement(db, updateReservationStatus, { id, to, at: f.timeToDb(now), list: from }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
        withSpan("InventoryRepository.transitionReservation"),
      ),
    transitionReservationsOfOrder: (orderId, from, to, now) =>
      runStatement(db, updateReservationStatusOfOrder, { orderId, to, at: f.timeToDb(now), list: from }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0)),
        withSpan("InventoryRepository.transitionReservationsOfOrder"),
      ),
  };
};
