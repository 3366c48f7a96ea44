/** The RestaurantsRepository port over dl_restaurants, dl_restaurant_staff, dl_staff_removals, dl_menus, dl_menu_items and dl_item_availability. */
import { Effect } from "effect";
import { sql } from "kysely";
import { lngScale, metresPerDegreeLat } from "../../../core/delivery/model/Geo.js";
import { Menu } from "../../../core/delivery/model/Menu.js";
import { ItemAvailability, MenuItem, MenuItemView } from "../../../core/delivery/model/MenuItem.js";
import { Restaurant } from "../../../core/delivery/model/Restaurant.js";
import { RestaurantStaff, StaffRemoval } from "../../../core/delivery/model/RestaurantStaff.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** The values of one discovery ring's statement. */
type NearParams = {
  readonly lat: number;
  readonly lng: number;
  /** Metres per degree of longitude at the point. */
  readonly kx: number;
  readonly latMin: number;
  readonly latMax: number;
  readonly lngMin: number;
  readonly lngMax: number;
  readonly radiusSquared: number;
  readonly afterDistanceSquared: number;
  readonly afterId: string;
  readonly limit: number;
};

/**
 * The first ring discovery reads, in metres past the last listed restaurant: a city centre fills a
 * page within it; elsewhere each short page widens the ring (at least 4 times), up to the largest
 * service radius.
 */
export const firstRingM = 250;

/** Builds the restaurants repository over `db`. */
export const makeSqlRestaurantsRepository = (db: SqlDatabase): RestaurantsRepository => {
  const f = featuresFor(db);
  const restaurants = rowCodec(Restaurant, f);
  const staff = rowCodec(RestaurantStaff, f);
  const removals = rowCodec(StaffRemoval, f);
  const menus = rowCodec(Menu, f);
  const items = rowCodec(MenuItem, f);
  const views = rowCodec(MenuItemView, f);
  const availability = rowCodec(ItemAvailability, f);
  // The inserts, the restaurant and staff reads of every order and quote, and the menu read of
  // quoting, compiled once; the menu items' insert has one row per item, so it is built per call.
  const insertRestaurant = compiledInsert("dl_restaurants", restaurants);
  const insertStaff = compiledInsert("dl_restaurant_staff", staff);
  const insertStaffIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_restaurant_staff")
      .values(slotsOf(staff.columns, p))
      .onConflict((oc) => oc.columns(["restaurant_id", "user_id"]).doNothing()),
  );
  const insertMenu = compiledInsert("dl_menus", menus);
  const radiusAsFloat = sql.raw(`CAST(service_radius_m AS ${db.dialect === "postgres" ? "double precision" : "REAL"})`);
  // Discovery's ring statements (listOpenNear), compiled once: the first page and a page after a cursor.
  const nearPage = (afterCursor: boolean) =>
    compiledOnce<NearParams>((ex, p) => {
      const d2 = sql<number>`((lat - ${p("lat")}) * ${metresPerDegreeLat}) * ((lat - ${p("lat")}) * ${metresPerDegreeLat}) + ((lng - ${p("lng")}) * ${p("kx")}) * ((lng - ${p("lng")}) * ${p("kx")})`;
      // Ranked from the discovery index alone (delivery migration 7); the rows of the page only are read.
      let near = ex
        .selectFrom("dl_restaurants")
        .select("id")
        .select(d2.as("distance_squared"))
        .where("opening_state", "=", "open")
        .where("lat", ">=", p("latMin"))
        .where("lat", "<=", p("latMax"))
        .where("lng", ">=", p("lngMin"))
        .where("lng", "<=", p("lngMax"))
        .where("service_state", "=", "active")
        .where("menu_version", ">", 0)
        // As a float: 50,000 m squared is past a 32-bit integer (Postgres would answer "integer out of range").
        .where(sql<boolean>`${d2} <= ${radiusAsFloat} * service_radius_m`)
        .where(sql<boolean>`${d2} <= ${p("radiusSquared")}`);
      if (afterCursor) {
        near = near.where(sql<boolean>`(${d2} > ${p("afterDistanceSquared")} OR (${d2} = ${p("afterDistanceSquared")} AND id > ${p("afterId")}))`);
      }
      return ex
        .with("near", () => near.orderBy(d2).orderBy("id").limit(p("limit")))
        .selectFrom("near")
        .innerJoin("dl_restaurants as r", "r.id", "near.id")
        .selectAll("r")
        .select("near.distance_squared")
        .orderBy("near.distance_squared")
        .orderBy("near.id");
    });
  const nearFirstPage = nearPage(false);
  const nearPageAfter = nearPage(true);
  const upsertAvailability = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_item_availability")
      .values(slotsOf(availability.columns, p))
      .onConflict((oc) => oc.columns(["restaurant_id", "item_id"]).doUpdateSet({ available: p("available"), updated_at: p("updated_at") })),
  );
  const selectRestaurant = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("dl_restaurants").selectAll().where("id", "=", p("id")));
  const selectRestaurantForUpdate = compiledOnce<{ id: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("dl_restaurants").selectAll().where("id", "=", p("id")), true),
  );
  const selectStaff = compiledOnce<{ restaurantId: string; userId: string }>((ex, p) =>
    ex.selectFrom("dl_restaurant_staff").select("user_id").where("restaurant_id", "=", p("restaurantId")).where("user_id", "=", p("userId")),
  );
  const selectMenuItems = compiledOnce<{ restaurantId: string; version: number }>((ex, p) =>
    ex
      .selectFrom("dl_menu_items as i")
      .innerJoin("dl_item_availability as a", (join) => join.onRef("a.restaurant_id", "=", "i.restaurant_id").onRef("a.item_id", "=", "i.id"))
      .select(["i.restaurant_id", "i.menu_version", "i.id", "i.name", "i.price_minor", "i.modifiers", "a.available"])
      .where("i.restaurant_id", "=", p("restaurantId"))
      .where("i.menu_version", "=", p("version"))
      .orderBy("i.position"),
  );
  return {
    insertRestaurant: (restaurant, creator) =>
      runQuery(db, async (ex) => {
        await insertRestaurant(ex, restaurant);
        await insertStaff(ex, creator);
      }).pipe(withSpan("RestaurantsRepository.insertRestaurant")),
    findRestaurant: (id, options) =>
      // FOR UPDATE on Postgres only when asked (lockRow).
      runQuery(db, (ex) => (options?.forUpdate === true ? selectRestaurantForUpdate : selectRestaurant)(ex, { id })).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : restaurants.fromRow(row))),
      ),
    setOpening: (id, state, _at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_restaurants")
          .set((eb) => ({ opening_state: state, version: eb("version", "+", 1) }))
          .where("id", "=", id)
          .where("opening_state", "<>", state)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
    addStaff: (member) =>
      runStatement(db, insertStaffIfNew, staff.toRow(member)).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) === 1)),
    isStaff: (restaurantId, userId) =>
      runStatement(db, selectStaff, { restaurantId, userId }).pipe(Effect.map(({ rows: [row] }) => row !== undefined)),
    removeStaff: (restaurantId, userId) =>
      runQuery(db, (ex) => ex.deleteFrom("dl_restaurant_staff").where("restaurant_id", "=", restaurantId).where("user_id", "=", userId).executeTakeFirst()).pipe(
        Effect.map((r) => toNumber(r.numDeletedRows) === 1),
        withSpan("RestaurantsRepository.removeStaff"),
      ),
    countStaff: (restaurantId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("dl_restaurant_staff")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("restaurant_id", "=", restaurantId)
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((row) => Number(row.n))),
    recordStaffRemoval: (removal) =>
      runQuery(db, (ex) => ex.insertInto("dl_staff_removals").values(removals.toRow(removal)).execute()).pipe(
        Effect.asVoid,
        withSpan("RestaurantsRepository.recordStaffRemoval"),
      ),
    staffRemovals: (restaurantId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_staff_removals").selectAll().where("restaurant_id", "=", restaurantId).orderBy("at").orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map((row) => removals.fromRow(row))),
      ),
    staffOf: (restaurantId, limit) =>
      runQuery(db, (ex) =>
        ex.selectFrom("dl_restaurant_staff").select("user_id").where("restaurant_id", "=", restaurantId).orderBy("user_id").limit(limit).execute(),
      ).pipe(Effect.map((rows) => rows.map((row) => String(row.user_id)))),
    listStaff: ({ restaurantId, afterUserId, limit }) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("dl_restaurant_staff").selectAll().where("restaurant_id", "=", restaurantId);
        if (afterUserId !== undefined) q = q.where("user_id", ">", afterUserId);
        return q.orderBy("user_id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((row) => staff.fromRow(row)))),
    publishMenu: (menu, menuItems, avail, expectedCurrent) =>
      runQuery(db, async (ex) => {
        const moved = await ex
          .updateTable("dl_restaurants")
          .set((eb) => ({ menu_version: menu.version, version: eb("version", "+", 1) }))
          .where("id", "=", menu.restaurantId)
          .where("menu_version", "=", expectedCurrent)
          .executeTakeFirst();
        if (toNumber(moved.numUpdatedRows) !== 1) return false;
        await insertMenu(ex, menu);
        if (menuItems.length > 0) {
          await ex
            .insertInto("dl_menu_items")
            .values(menuItems.map((item, position) => ({ ...items.toRow(item), position })))
            .execute();
        }
        for (const a of avail) await upsertAvailability(ex, availability.toRow(a));
        return true;
      }).pipe(withSpan("RestaurantsRepository.publishMenu")),
    menuItems: (restaurantId, version) =>
      runStatement(db, selectMenuItems, { restaurantId, version }).pipe(Effect.map(({ rows }) => rows.map((row) => views.fromRow(row)))),
    setAvailability: (a) =>
      runQuery(db, async (ex) => {
        const known = await ex.selectFrom("dl_menu_items").select("id").where("restaurant_id", "=", a.restaurantId).where("id", "=", a.itemId).limit(1).executeTakeFirst();
        if (known === undefined) return false;
        await upsertAvailability(ex, availability.toRow(a));
        return true;
      }),
    listOpenNear: ({ point, after, limit, maxRadiusM }) => {
      // Nearest ring first (docs/decisions.md "Discovery reads the nearest ring first"): a page of
      // `limit` rows that all lie within `radius` is the true page, since every row left out lies
      // farther; a short page widens the ring, up to the largest service radius.
      const kx = lngScale(point);
      const listedUpTo = after === null ? 0 : Math.sqrt(after.distanceSquared);
      const ringPage = (reach: number) => {
        const radius = Math.min(listedUpTo + reach, maxRadiusM);
        // d <= radius puts a row within radius of the point on each axis (plus a metre for rounding).
        const latBand = (radius + 1) / metresPerDegreeLat;
        const lngBand = (radius + 1) / kx;
        const params: NearParams = {
          lat: point.lat,
          lng: point.lng,
          kx,
          latMin: point.lat - latBand,
          latMax: point.lat + latBand,
          lngMin: Math.max(-180, point.lng - lngBand),
          lngMax: Math.min(180, point.lng + lngBand),
          radiusSquared: radius * radius,
          afterDistanceSquared: after?.distanceSquared ?? 0,
          afterId: after?.id ?? "",
          limit,
        };
        return runStatement(db, after === null ? nearFirstPage : nearPageAfter, params).pipe(
          Effect.map(({ rows }) => ({
            radius,
            rows: rows.map((row) => ({ restaurant: restaurants.fromRow(row), distanceSquared: Number(row.distance_squared) })),
          })),
        );
      };
      const widen = (reach: number): Effect.Effect<ReadonlyArray<{ restaurant: Restaurant; distanceSquared: number }>> =>
        Effect.flatMap(ringPage(reach), ({ radius, rows }) =>
          rows.length >= limit || radius >= maxRadiusM
            ? Effect.succeed(rows)
            : // Wide enough for the page at the density this ring showed (at least 4 times wider).
              widen(reach * Math.max(4, 1.5 * Math.sqrt(limit / Math.max(rows.length, 1)))),
        );
      return widen(firstRingM).pipe(withSpan("RestaurantsRepository.listOpenNear"));
    },
    hasItem: (restaurantId, itemId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_menu_items").select("id").where("restaurant_id", "=", restaurantId).where("id", "=", itemId).limit(1).executeTakeFirst()).pipe(
        Effect.map((row) => row !== undefined),
      ),
  };
};
