/** The DispatchRepository port over dl_couriers, dl_deliveries, dl_delivery_status_changes and dl_courier_offers. */
import { Effect } from "effect";
import { sql } from "kysely";
import { Courier } from "../../../core/delivery/model/Courier.js";
import { CourierOffer } from "../../../core/delivery/model/CourierOffer.js";
import { Delivery } from "../../../core/delivery/model/Delivery.js";
import { DeliveryStatusChange } from "../../../core/delivery/model/DeliveryStatusChange.js";
import type { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the dispatch repository over `db`. */
export const makeSqlDispatchRepository = (db: SqlDatabase): DispatchRepository => {
  const f = featuresFor(db);
  const couriers = rowCodec(Courier, f);
  const offers = rowCodec(CourierOffer, f);
  const deliveries = rowCodec(Delivery, f);
  const changes = rowCodec(DeliveryStatusChange, f);
  const findCourierByUser: DispatchRepository["findCourierByUser"] = (userId) =>
    runQuery(db, (ex) => ex.selectFrom("dl_couriers").selectAll().where("user_id", "=", userId).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? null : couriers.fromRow(row))),
    );
  const findDelivery: DispatchRepository["findDelivery"] = (id, options) =>
    runQuery(db, (ex) => lockRow(db, ex.selectFrom("dl_deliveries").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? null : deliveries.fromRow(row))),
    );
  const findDeliveryByOrder: DispatchRepository["findDeliveryByOrder"] = (orderId) =>
    runQuery(db, (ex) => ex.selectFrom("dl_deliveries").selectAll().where("order_id", "=", orderId).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? null : deliveries.fromRow(row))),
    );
  return {
    insertCourier: (courier) =>
      Effect.gen(function* () {
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("dl_couriers")
            .values(couriers.toRow(courier))
            .onConflict((oc) => oc.column("user_id").doNothing())
            .execute(),
        );
        const stored = yield* findCourierByUser(courier.userId);
        return stored ?? courier;
      }).pipe(withSpan("DispatchRepository.insertCourier")),
    findCourier: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_couriers").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : couriers.fromRow(row))),
      ),
    findCourierByUser,
    setCourierOnline: (id, online) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_couriers")
          // TRUE / FALSE literals: a boolean column on Postgres, 1 / 0 on SQLite.
          .set({ online: sql.lit(online) })
          .where("id", "=", id)
          .execute(),
      ).pipe(Effect.asVoid),
    setCourierLocation: (id, location) =>
      runQuery(db, (ex) =>
        ex.updateTable("dl_couriers").set({ lat: location.lat, lng: location.lng, located_at: f.timeToDb(location.at) }).where("id", "=", id).execute(),
      ).pipe(Effect.asVoid),
    candidates: (deliveryId, near, limit) => {
      // The same equirectangular distance as core/delivery/model/Geo.ts, squared (order only).
      const k = Math.cos((near.lat * Math.PI) / 180) ** 2;
      return runQuery(db, (ex) =>
        ex
          .selectFrom("dl_couriers as c")
          .selectAll("c")
          .where(sql<boolean>`c.online`)
          .where("c.lat", "is not", null)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("dl_deliveries as d")
                  .select("d.id")
                  .whereRef("d.courier_id", "=", "c.id")
                  .where("d.status", "in", ["assigned", "picked_up"]),
              ),
            ),
          )
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom("dl_courier_offers as o").select("o.id").whereRef("o.courier_id", "=", "c.id").where("o.delivery_id", "=", deliveryId))),
          )
          .orderBy(sql`(c.lat - ${near.lat}) * (c.lat - ${near.lat}) + (c.lng - ${near.lng}) * (c.lng - ${near.lng}) * ${k}`)
          .orderBy("c.id")
          .limit(limit)
          .execute(),
      ).pipe(
        Effect.map((rows) => rows.map(couriers.fromRow)),
        withSpan("DispatchRepository.candidates"),
      );
    },
    insertDelivery: (delivery) =>
      Effect.gen(function* () {
        const inserted = yield* runQuery(db, (ex) =>
          ex
            .insertInto("dl_deliveries")
            .values(deliveries.toRow(delivery))
            .onConflict((oc) => oc.column("order_id").doNothing())
            .executeTakeFirst(),
        );
        const created = toNumber(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
        const stored = yield* findDeliveryByOrder(delivery.orderId);
        return { delivery: stored ?? delivery, created };
      }).pipe(withSpan("DispatchRepository.insertDelivery")),
    findDelivery,
    findDeliveryByOrder,
    deliveriesInRegion: ({ region, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex
          .selectFrom("dl_deliveries")
          .selectAll()
          .where("status", "in", ["pending", "assigned", "picked_up"])
          .where("pickup_lat", ">=", region.minLat)
          .where("pickup_lat", "<=", region.maxLat)
          .where("pickup_lng", ">=", region.minLng)
          .where("pickup_lng", "<=", region.maxLng);
        if (afterId !== null) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((row) => deliveries.fromRow(row))),
        withSpan("DispatchRepository.deliveriesInRegion"),
      ),
    activeDeliveriesOf: (courierId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("dl_deliveries")
          .selectAll()
          .where("courier_id", "=", courierId)
          .where("status", "in", ["assigned", "picked_up"])
          .orderBy("id")
          .execute(),
      ).pipe(
        Effect.map((rows) => rows.map((row) => deliveries.fromRow(row))),
        withSpan("DispatchRepository.activeDeliveriesOf"),
      ),
    assignCourier: (deliveryId, courierId, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_deliveries")
          .set((eb) => ({ courier_id: courierId, status: "assigned", version: eb("version", "+", 1), updated_at: f.timeToDb(at) }))
          .where("id", "=", deliveryId)
          .where("courier_id", "is", null)
          .where("status", "=", "pending")
          .returningAll()
          .executeTakeFirst(),
      ).pipe(
        Effect.map((row) => (row === undefined ? null : deliveries.fromRow(row))),
        withSpan("DispatchRepository.assignCourier"),
      ),
    updateDelivery: (next, expectedVersion) =>
      runQuery(db, (ex) => {
        const { id: _id, ...columns } = deliveries.toRow(next);
        return ex.updateTable("dl_deliveries").set(columns).where("id", "=", next.id).where("version", "=", expectedVersion).executeTakeFirst();
      }).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) === 1),
        withSpan("DispatchRepository.updateDelivery"),
      ),
    insertStatusChange: (change) =>
      runQuery(db, (ex) => ex.insertInto("dl_delivery_status_changes").values(changes.toRow(change)).execute()).pipe(Effect.asVoid),
    findStatusChange: (deliveryId, transitionId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", deliveryId).where("transition_id", "=", transitionId).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : changes.fromRow(row)))),
    statusHistory: (deliveryId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", deliveryId).orderBy("version").execute()).pipe(
        Effect.map((rows) => rows.map(changes.fromRow)),
      ),
    insertOffers: (list) =>
      list.length === 0 ? Effect.void : runQuery(db, (ex) => ex.insertInto("dl_courier_offers").values(list.map(offers.toRow)).execute()).pipe(Effect.asVoid),
    findOffer: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_courier_offers").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : offers.fromRow(row))),
      ),
    offersOfDelivery: (deliveryId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_courier_offers").selectAll().where("delivery_id", "=", deliveryId).orderBy("created_at").orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(offers.fromRow)),
      ),
    liveOffers: (courierId, now) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("dl_courier_offers")
          .selectAll()
          .where("courier_id", "=", courierId)
          .where("status", "=", "offered")
          .where("expires_at", ">", f.timeToDb(now))
          .orderBy("expires_at")
          .orderBy("id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(offers.fromRow))),
    decideOffer: (id, from, to, at) =>
      runQuery(db, (ex) =>
        ex.updateTable("dl_courier_offers").set({ status: to, decided_at: f.timeToDb(at) }).where("id", "=", id).where("status", "=", from).executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
    loseOtherOffers: (deliveryId, winnerOfferId, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_courier_offers")
          .set({ status: "lost", decided_at: f.timeToDb(at) })
          .where("delivery_id", "=", deliveryId)
          .where("id", "<>", winnerOfferId)
          .where("status", "=", "offered")
          .returningAll()
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(offers.fromRow))),
    expireOffers: (deliveryId, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_courier_offers")
          .set({ status: "expired", decided_at: f.timeToDb(now) })
          .where("delivery_id", "=", deliveryId)
          .where("status", "=", "offered")
          .where("expires_at", "<=", f.timeToDb(now))
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows))),
  };
};

