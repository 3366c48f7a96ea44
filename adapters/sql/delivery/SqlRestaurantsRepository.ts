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
      const kx = lngScale(point);
      const d2 = sql<number>`((lat - ${point.lat}) * ${metresPerDegreeLat}) * ((lat - ${point.lat}) * ${metresPerDegreeLat}) + ((lng - ${point.lng}) * ${kx}) * ((lng - ${point.lng}) * ${kx})`;
      const band = maxRadiusM / metresPerDegreeLat;
      return runQuery(db, (ex) => {
        // Ranked from the discovery index alone (delivery migration 7); the rows of the page only are read.
        let near = ex
          .selectFrom("dl_restaurants")
          .select("id")
          .select(d2.as("distance_squared"))
          .where("opening_state", "=", "open")
          .where("lat", ">=", point.lat - band)
          .where("lat", "<=", point.lat + band)
          .where("service_state", "=", "active")
          .where("menu_version", ">", 0)
          .where(sql<boolean>`${d2} <= service_radius_m * service_radius_m`);
        if (after !== null) near = near.where(sql<boolean>`(${d2} > ${after.distanceSquared} OR (${d2} = ${after.distanceSquared} AND id > ${after.id}))`);
        return ex
          .with("near", () => near.orderBy(d2).orderBy("id").limit(limit))
          .selectFrom("near")
          .innerJoin("dl_restaurants as r", "r.id", "near.id")
          .selectAll("r")
          .select("near.distance_squared")
          .orderBy("near.distance_squared")
          .orderBy("near.id")
          .execute();
      }).pipe(
        Effect.map((rows) => rows.map((row) => ({ restaurant: restaurants.fromRow(row), distanceSquared: Number(row.distance_squared) }))),
        withSpan("RestaurantsRepository.listOpenNear"),
      );
    },
    hasItem: (restaurantId, itemId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_menu_items").select("id").where("restaurant_id", "=", restaurantId).where("id", "=", itemId).limit(1).executeTakeFirst()).pipe(
        Effect.map((row) => row !== undefined),
      ),
  };
};
