/**
 * The InventoryRepository port over `shop_inventory`, `shop_stock_adjustments` and
 * `shop_reservations`. Each stock change is one conditional UPDATE: a reservation only where
 * enough is available, an adjustment only where on_hand stays at least reserved, and a
 * reservation's status only from the status the caller saw — so concurrent checkouts, expiry
 * and cancellation are decided by the database (and the CHECK on `reserved` backs it).
 */
import { Effect } from "effect";
import { Reservation } from "../../../core/commerce/model/Reservation.js";
import { StockAdjustment, StockLevel } from "../../../core/commerce/model/StockLevel.js";
import type { InventoryRepository } from "../../../ports/commerce/InventoryRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the inventory repository over `db`. */
export const makeSqlInventoryRepository = (db: SqlDatabase): InventoryRepository => {
  const f = featuresFor(db);
  const stock = rowCodec(StockLevel, f);
  const adjustments = rowCodec(StockAdjustment, f);
  const reservations = rowCodec(Reservation, f);
  const findStock: InventoryRepository["findStock"] = (variantId, locationId) =>
    runQuery(db, (ex) =>
      ex.selectFrom("shop_inventory").selectAll().where("variant_id", "=", variantId).where("location_id", "=", locationId).executeTakeFirst(),
    ).pipe(Effect.map((r) => (r === undefined ? null : stock.fromRow(r))));
  return {
    findStock,
    stockOf: (variantIds) =>
      variantIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) =>
            ex.selectFrom("shop_inventory").selectAll().where("variant_id", "in", [...variantIds]).orderBy("location_id").execute(),
          ).pipe(Effect.map((rows) => rows.map(stock.fromRow))),
    adjust: ({ storeId, variantId, locationId, delta, now }) =>
      Effect.gen(function* () {
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("shop_inventory")
            .values(stock.toRow({ storeId, variantId, locationId, onHand: 0, reserved: 0, version: 1, updatedAt: now }))
            .onConflict((oc) => oc.columns(["variant_id", "location_id"]).doNothing())
            .execute(),
        );
        const updated = yield* runQuery(db, (ex) =>
          ex
            .updateTable("shop_inventory")
            .set((eb) => ({
              on_hand: eb("on_hand", "+", delta),
              version: eb("version", "+", 1),
              updated_at: f.timeToDb(now),
            }))
            .where("variant_id", "=", variantId)
            .where("location_id", "=", locationId)
            .where("store_id", "=", storeId)
            .where((eb) => eb(eb("on_hand", "+", delta), ">=", eb.ref("reserved")))
            .executeTakeFirst(),
        );
        if (toNumber(updated.numUpdatedRows) === 0) return null;
        return yield* findStock(variantId, locationId);
      }).pipe(withSpan("InventoryRepository.adjust")),
    insertAdjustment: (a) =>
      runQuery(db, (ex) => ex.insertInto("shop_stock_adjustments").values(adjustments.toRow(a)).execute()).pipe(Effect.asVoid),
    reserve: (variantId, locationId, quantity, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_inventory")
          .set((eb) => ({ reserved: eb("reserved", "+", quantity), version: eb("version", "+", 1), updated_at: f.timeToDb(now) }))
          .where("variant_id", "=", variantId)
          .where("location_id", "=", locationId)
          .where((eb) => eb(eb("on_hand", "-", eb.ref("reserved")), ">=", quantity))
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) > 0),
        withSpan("InventoryRepository.reserve"),
      ),
    unreserve: (variantId, locationId, quantity, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_inventory")
          .set((eb) => ({ reserved: eb("reserved", "-", quantity), version: eb("version", "+", 1), updated_at: f.timeToDb(now) }))
          .where("variant_id", "=", variantId)
          .where("location_id", "=", locationId)
          .execute(),
      ).pipe(Effect.asVoid),
    consume: (variantId, locationId, quantity, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_inventory")
          .set((eb) => ({
            on_hand: eb("on_hand", "-", quantity),
            reserved: eb("reserved", "-", quantity),
            version: eb("version", "+", 1),
            updated_at: f.timeToDb(now),
          }))
          .where("variant_id", "=", variantId)
          .where("location_id", "=", locationId)
          .execute(),
      ).pipe(Effect.asVoid),
    insertReservations: (made) =>
      made.length === 0
        ? Effect.void
        : runQuery(db, (ex) => ex.insertInto("shop_reservations").values(made.map((r) => reservations.toRow(r))).execute()).pipe(Effect.asVoid),
    findReservation: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_reservations").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : reservations.fromRow(r))),
      ),
    reservationsOfOrder: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_reservations").selectAll().where("order_id", "=", orderId).orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(reservations.fromRow)),
      ),
    transitionReservation: (id, from, to, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_reservations")
          .set({ status: to, updated_at: f.timeToDb(now) })
          .where("id", "=", id)
          .where("status", "in", [...from])
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) > 0),
        withSpan("InventoryRepository.transitionReservation"),
      ),
    transitionReservationsOfOrder: (orderId, from, to, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_reservations")
          .set({ status: to, updated_at: f.timeToDb(now) })
          .where("order_id", "=", orderId)
          .where("status", "in", [...from])
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows)),
        withSpan("InventoryRepository.transitionReservationsOfOrder"),
      ),
  };
};
