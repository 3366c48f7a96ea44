/** The DispatchRepository port over dl_couriers, dl_deliveries, dl_delivery_status_changes and dl_courier_offers. */
import { Effect } from "effect";
import { sql } from "kysely";
import { Courier } from "../../../core/delivery/model/Courier.js";
import { lngScale, metresPerDegreeLat } from "../../../core/delivery/model/Geo.js";
import { CourierOffer } from "../../../core/delivery/model/CourierOffer.js";
import { Delivery } from "../../../core/delivery/model/Delivery.js";
import { redactedDropoffAddress } from "../../../core/delivery/model/PriceSnapshot.js";
import { DeliveryStatusChange } from "../../../core/delivery/model/DeliveryStatusChange.js";
import type { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledUpdateIfVersion, runQuery, runStatement, sendStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the dispatch repository over `db`. */
export const makeSqlDispatchRepository = (db: SqlDatabase): DispatchRepository => {
  const f = featuresFor(db);
  const couriers = rowCodec(Courier, f);
  const offers = rowCodec(CourierOffer, f);
  const deliveries = rowCodec(Delivery, f);
  const changes = rowCodec(DeliveryStatusChange, f);
  // The courier's reads and position, the delivery's reads, inserts, assignment and status
  // transitions, and the offer decisions: compiled once.
  const insertCourierIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_couriers")
      .values(slotsOf(couriers.columns, p))
      .onConflict((oc) => oc.column("user_id").doNothing()),
  );
  const selectCourier = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_couriers").selectAll().where("id", "=", p("id")));
  // FOR NO KEY UPDATE on Postgres: serializes the courier's assignments (it conflicts with itself)
  // without blocking the rows that only reference the courier (offers, samples: FOR KEY SHARE).
  const selectCourierForUpdate = compiledOnce<{ id: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("dl_couriers").selectAll().where("id", "=", p("id")), true, "no key update"),
  );
  const selectCourierByUser = compiledOnce<{ userId: string }>((ex, p) => ex.selectFrom("dl_couriers").selectAll().where("user_id", "=", p("userId")));
  const updateCourierLocation = compiledOnce<{ id: string; lat: number; lng: number; at: unknown }>((ex, p) =>
    ex.updateTable("dl_couriers").set({ lat: p("lat"), lng: p("lng"), located_at: p("at") }).where("id", "=", p("id")),
  );
  const clearCourierLocations = compiledOnce<{ cutoff: unknown }>((ex, p) =>
    ex.updateTable("dl_couriers").set({ lat: null, lng: null, located_at: null }).where("located_at", "<", p("cutoff")),
  );
  const selectDelivery = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_deliveries").selectAll().where("id", "=", p("id")));
  const selectDeliveryForUpdate = compiledOnce<{ id: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("dl_deliveries").selectAll().where("id", "=", p("id")), true),
  );
  const selectDeliveryByOrder = compiledOnce<{ orderId: string }>((ex, p) => ex.selectFrom("dl_deliveries").selectAll().where("order_id", "=", p("orderId")));
  const insertDeliveryIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_deliveries")
      .values(slotsOf(deliveries.columns, p))
      .onConflict((oc) => oc.column("order_id").doNothing()),
  );
  const selectActiveDeliveriesOf = compiledOnce<{ courierId: string }>((ex, p) =>
    ex
      .selectFrom("dl_deliveries")
      .selectAll()
      .where("courier_id", "=", p("courierId"))
      .where("status", "in", ["assigned", "picked_up"])
      .orderBy("id"),
  );
  const assignIfPending = compiledOnce<{ deliveryId: string; courierId: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("dl_deliveries")
      .set((eb) => ({ courier_id: p("courierId"), status: "assigned", version: eb("version", "+", 1), updated_at: p("at") }))
      .where("id", "=", p("deliveryId"))
      .where("courier_id", "is", null)
      .where("status", "=", "pending")
      .returningAll(),
  );
  const updateDeliveryIfVersion = compiledUpdateIfVersion("dl_deliveries", deliveries, { key: ["id"] });
  const insertStatusChange = compiledInsert("dl_delivery_status_changes", changes);
  const selectStatusChange = compiledOnce<{ deliveryId: string; transitionId: string }>((ex, p) =>
    ex.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", p("deliveryId")).where("transition_id", "=", p("transitionId")),
  );
  const selectOffer = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_courier_offers").selectAll().where("id", "=", p("id")));
  const decideOfferIfStatus = compiledOnce<{ id: string; from: string; to: string; at: unknown }>((ex, p) =>
    ex.updateTable("dl_courier_offers").set({ status: p("to"), decided_at: p("at") }).where("id", "=", p("id")).where("status", "=", p("from")),
  );
  const loseOffersBut = compiledOnce<{ deliveryId: string; winnerOfferId: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("dl_courier_offers")
      .set({ status: "lost", decided_at: p("at") })
      .where("delivery_id", "=", p("deliveryId"))
      .where("id", "<>", p("winnerOfferId"))
      // An accepted offer other than the winner's is a previous winner's, reassigned away.
      .where("status", "in", ["offered", "accepted"])
      .returningAll(),
  );
  const expireDueOffers = compiledOnce<{ deliveryId: string; now: unknown }>((ex, p) =>
    ex
      .updateTable("dl_courier_offers")
      .set({ status: "expired", decided_at: p("now") })
      .where("delivery_id", "=", p("deliveryId"))
      .where("status", "=", "offered")
      .where("expires_at", "<=", p("now")),
  );
  const findCourierByUser: DispatchRepository["findCourierByUser"] = (userId) =>
    runStatement(db, selectCourierByUser, { userId }).pipe(
      Effect.map(({ rows: [row] }) => (row === undefined ? null : couriers.fromRow(row))),
    );
  const findDelivery: DispatchRepository["findDelivery"] = (id, options) =>
    // FOR UPDATE on Postgres only when asked (lockRow).
    runQuery(db, (ex) => (options?.forUpdate === true ? selectDeliveryForUpdate : selectDelivery)(ex, { id })).pipe(
      Effect.map(({ rows: [row] }) => (row === undefined ? null : deliveries.fromRow(row))),
    );
  const findDeliveryByOrder: DispatchRepository["findDeliveryByOrder"] = (orderId) =>
    runStatement(db, selectDeliveryByOrder, { orderId }).pipe(
      Effect.map(({ rows: [row] }) => (row === undefined ? null : deliveries.fromRow(row))),
    );
  return {
    insertCourier: (courier) =>
      Effect.gen(function* () {
        yield* runStatement(db, insertCourierIfNew, couriers.toRow(courier));
        const stored = yield* findCourierByUser(courier.userId);
        return stored ?? courier;
      }).pipe(withSpan("DispatchRepository.insertCourier")),
    findCourier: (id, options) =>
      // FOR UPDATE on Postgres only when asked (lockRow).
      runStatement(db, options?.forUpdate === true ? selectCourierForUpdate : selectCourier, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : couriers.fromRow(row))),
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
      // Nobody reads its answer: in a Postgres transaction it goes out with the next statement.
      sendStatement(db, updateCourierLocation, { id, lat: location.lat, lng: location.lng, at: f.timeToDb(location.at) }),
    clearCourierLocationsBefore: (cutoff) =>
      runStatement(db, clearCourierLocations, { cutoff: f.timeToDb(cutoff) }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0))),
    redactDropoffsEndedBefore: (endedBefore) =>
      // The same expressions as delivery migration 11 checks; the masked literal (not a parameter)
      // lets the partial index dl_deliveries_dropoff_kept serve the pass.
      runQuery(db, (ex) =>
        sql`UPDATE dl_deliveries
            SET dropoff_lat = round(dropoff_lat * 1000) / 1000, dropoff_lng = round(dropoff_lng * 1000) / 1000, dropoff_address = ${sql.lit(redactedDropoffAddress)}
            WHERE dropoff_address <> ${sql.lit(redactedDropoffAddress)} AND status IN ('delivered', 'cancelled') AND updated_at < ${f.timeToDb(endedBefore)}`.execute(ex),
      ).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0)),
        withSpan("DispatchRepository.redactDropoffsEndedBefore"),
      ),
    candidates: (deliveryId, near, limit, withinM) => {
      // The distance of core/delivery/model/Geo.ts, squared; within withinM of the pickup, so within
      // withinM on each axis (plus a metre for rounding): the band read from dl_couriers_online_position.
      const kx = lngScale(near);
      const d2 = sql<number>`((c.lat - ${near.lat}) * ${metresPerDegreeLat}) * ((c.lat - ${near.lat}) * ${metresPerDegreeLat}) + ((c.lng - ${near.lng}) * ${kx}) * ((c.lng - ${near.lng}) * ${kx})`;
      const latBand = (withinM + 1) / metresPerDegreeLat;
      const lngBand = (withinM + 1) / kx;
      return runQuery(db, (ex) =>
        ex
          .selectFrom("dl_couriers as c")
          .selectAll("c")
          .where(sql<boolean>`c.online`)
          .where("c.lat", ">=", near.lat - latBand)
          .where("c.lat", "<=", near.lat + latBand)
          .where("c.lng", ">=", Math.max(-180, near.lng - lngBand))
          .where("c.lng", "<=", Math.min(180, near.lng + lngBand))
          .where(sql<boolean>`${d2} <= ${withinM * withinM}`)
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
          .orderBy(d2)
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
        const inserted = yield* runStatement(db, insertDeliveryIfNew, deliveries.toRow(delivery));
        const created = toNumber(inserted.numAffectedRows ?? 0) === 1;
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
      runStatement(db, selectActiveDeliveriesOf, { courierId }).pipe(
        Effect.map(({ rows }) => rows.map((row) => deliveries.fromRow(row))),
        withSpan("DispatchRepository.activeDeliveriesOf"),
      ),
    assignCourier: (deliveryId, courierId, at) =>
      runStatement(db, assignIfPending, { deliveryId, courierId, at: f.timeToDb(at) }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : deliveries.fromRow(row))),
        withSpan("DispatchRepository.assignCourier"),
      ),
    updateDelivery: (next, expectedVersion) =>
      runStatement(db, updateDeliveryIfVersion, { record: next, expectedVersion }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) === 1),
        withSpan("DispatchRepository.updateDelivery"),
      ),
    insertStatusChange: (change) =>
      sendStatement(db, insertStatusChange, change),
    findStatusChange: (deliveryId, transitionId) =>
      runStatement(db, selectStatusChange, { deliveryId, transitionId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : changes.fromRow(row))),
      ),
    statusHistory: (deliveryId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", deliveryId).orderBy("version").execute()).pipe(
        Effect.map((rows) => rows.map(changes.fromRow)),
      ),
    insertOffers: (list) =>
      list.length === 0 ? Effect.void : runQuery(db, (ex) => ex.insertInto("dl_courier_offers").values(list.map(offers.toRow)).execute()).pipe(Effect.asVoid),
    findOffer: (id) =>
      runStatement(db, selectOffer, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : offers.fromRow(row))),
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
      runStatement(db, decideOfferIfStatus, { id, from, to, at: f.timeToDb(at) }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) === 1)),
    loseOtherOffers: (deliveryId, winnerOfferId, at) =>
      runStatement(db, loseOffersBut, { deliveryId, winnerOfferId, at: f.timeToDb(at) }).pipe(Effect.map(({ rows }) => rows.map(offers.fromRow))),
    expireOffers: (deliveryId, now) =>
      runStatement(db, expireDueOffers, { deliveryId, now: f.timeToDb(now) }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0))),
  };
};

