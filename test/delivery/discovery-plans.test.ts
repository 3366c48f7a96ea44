/**
 * Discovery (`RestaurantsRepository.listOpenNear`) runs on every customer's search for food. On
 * SQLite it must rank the restaurants of the latitude band from the discovery index alone
 * (delivery migration 7) and read the rows of one page only: before, it read the whole row of
 * every restaurant in the band to compute its distance (~6 ms for 10,000 in a city). The plan of
 * the statement the repository really prepares is read with EXPLAIN QUERY PLAN.
 *
 * It reads the nearest ring first (docs/decisions.md "Discovery reads the nearest ring first"): a
 * page filled near the point reads none of the band's farther restaurants (measured on Postgres
 * with EXPLAIN ANALYZE), and the pages it answers are the true ranking on both dialects.
 * A dispatch round likewise reads the online couriers near the pickup only (delivery migration 20).
 */
import { Effect } from "effect";
import { sql } from "kysely";
import t from "tap";
import { makeSqlDispatchRepository } from "../../adapters/sql/delivery/SqlDispatchRepository.js";
import { makeSqlRestaurantsRepository } from "../../adapters/sql/delivery/SqlRestaurantsRepository.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { distanceMetres } from "../../core/delivery/model/Geo.js";
import { forEachDialect, openTestDatabase, type TapTest } from "../support/databases.js";
import { genericPlan, measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { deliveryTestModules } from "./support.js";

t.test("SQLite: discovery ranks the band's restaurants from the discovery index and reads only the page's rows", async (t) => {
  const db = await openTestDatabase("sqlite", t, deliveryTestModules);
  const restaurants = makeSqlRestaurantsRepository(db);
  const point = { lat: 52.52, lng: 13.405 };
  for (const after of [null, { distanceSquared: 100, id: "00000000-0000-7000-8000-000000000001" }]) {
    const { executed } = await capturePrepared(
      (text) => text.includes('"dl_restaurants"'),
      () => Effect.runPromise(restaurants.listOpenNear({ point, after, limit: 21, maxRadiusM: 50_000 })),
    );
    t.equal(executed.size, 1, "one statement");
    for (const [text, parameters] of executed) {
      const details = await planDetails(db, text, parameters);
      t.ok(
        details.some((d) => /^SEARCH dl_restaurants USING COVERING INDEX dl_restaurants_discovery \(opening_state=\? AND lat>\? AND lat<\?\)/.test(d)),
        `the band is ranked from the index alone: ${details.join(" | ")}`,
      );
      t.ok(details.some((d) => /^SEARCH r USING INDEX sqlite_autoindex_dl_restaurants_1 \(id=\?\)/.test(d)), "the page's rows are read by id");
    }
  }
});

const point = { lat: 52.52, lng: 13.405 };

/**
 * `count` open restaurants with a menu, serving 5 km: restaurant i at `latOffset(i)` degrees north
 * of the point and `lngOffset(i)` east, with the id `prefix` and 100000 + i.
 */
const seedRestaurants = async (db: SqlDatabase, prefix: string, count: number, latOffset: string, lngOffset: string) => {
  const createdAt = db.dialect === "postgres" ? new Date() : new Date().toISOString();
  const numbers =
    db.dialect === "postgres"
      ? sql`SELECT g AS i FROM generate_series(0, ${count - 1}) g`
      : sql`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1}) SELECT i FROM n`;
  await sql`INSERT INTO dl_restaurants (id, name, lat, lng, service_radius_m, currency, opening_state, service_state, merchant_id, menu_version, created_by, created_at, version)
    SELECT ${prefix} || (100000 + i), ${prefix} || i, ${point.lat} + ${sql.raw(latOffset)}, ${point.lng} + ${sql.raw(lngOffset)}, 5000, 'EUR', 'open', 'active', 'merchant', 1, 'owner', ${createdAt}, 1
    FROM (${numbers}) numbers`.execute(db.db);
};

/** Every restaurant serving the point, as listOpenNear must rank them: by distance, then id. */
const ranking = async (db: SqlDatabase) => {
  const rows = await sql<{ id: string; lat: number; lng: number; service_radius_m: number }>`SELECT id, lat, lng, service_radius_m FROM dl_restaurants`.execute(db.db);
  return rows.rows
    .map((row) => ({ id: row.id, distance: distanceMetres(point, { lat: Number(row.lat), lng: Number(row.lng) }), radius: Number(row.service_radius_m) }))
    .filter((row) => row.distance <= row.radius)
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => row.id);
};

const nearestRingFirst = async (t: TapTest, db: SqlDatabase) => {
  await sql`DELETE FROM dl_restaurants`.execute(db.db);
  const restaurants = makeSqlRestaurantsRepository(db);
  // A busy street within about 100 m of the point, and 2,000 restaurants 1.1 to 4.4 km north in the same latitude band.
  await seedRestaurants(db, "near", 40, "(i % 8) * 0.0001", "(i / 8) * 0.0002");
  await seedRestaurants(db, "far", 2000, "0.01 + (i % 1000) * 0.00003", "(i % 2) * 0.001");
  await sql`ANALYZE dl_restaurants`.execute(db.db);
  const expected = (await ranking(db)).slice(0, 21);
  const page = () => Effect.runPromise(restaurants.listOpenNear({ point, after: null, limit: 21, maxRadiusM: 50_000 }));
  if (db.dialect === "postgres") {
    let rows: Awaited<ReturnType<typeof page>> = [];
    const sent = await sentToPostgres((text) => text.includes('"dl_restaurants"'), async () => (rows = await page()));
    t.same(rows.map((row) => row.restaurant.id), expected, "the 21 nearest, nearest first");
    t.equal(sent.length, 1, "one statement: the first ring fills the page");
    const read = rowsRead(await measuredPlan(db, sent[0]!), "dl_restaurants");
    t.ok(read <= 2 * 40 + 21, `reads the near restaurants and the page's rows only (${read} rows), none of the 2,000 farther ones`);
    // A named statement ends up on its generic plan, which cannot see the ring's values.
    const indexes = planNodes(await genericPlan(db, sent[0]!)).flatMap((node) => (typeof node["Index Name"] === "string" ? [node["Index Name"]] : []));
    t.ok(indexes.includes("dl_restaurants_discovery"), `the generic plan seeks dl_restaurants_discovery: ${indexes.join(", ")}`);
  } else {
    t.same((await page()).map((row) => row.restaurant.id), expected, "the 21 nearest, nearest first");
  }
};

const pagesThroughRings = async (t: TapTest, db: SqlDatabase) => {
  await sql`DELETE FROM dl_restaurants`.execute(db.db);
  const restaurants = makeSqlRestaurantsRepository(db);
  // Rings of every density: 12 within 60 m, 12 from 0.3 to 3 km, 12 from 5 to 40 km (zones of
  // 5 km: the farther ones do not serve the point), and a 45 km one whose zone does.
  await seedRestaurants(db, "a", 12, "(i % 4) * 0.0001", "(i / 4) * 0.0002");
  await seedRestaurants(db, "b", 12, "0.003 + i * 0.002", "(i % 3) * -0.002");
  await seedRestaurants(db, "c", 12, "-0.05 - i * 0.03", "0.0");
  await seedRestaurants(db, "d", 1, "0.4", "0.0");
  await sql`UPDATE dl_restaurants SET service_radius_m = 50000 WHERE id LIKE 'c%' AND id <= 'c100003' OR id LIKE 'd%'`.execute(db.db);
  const expected = await ranking(db);
  t.ok(expected.length >= 25, `restaurants at every distance serve the point (${expected.length})`);
  for (const limit of [1, 5, 7]) {
    const listed: string[] = [];
    let after: { distanceSquared: number; id: string } | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const rows: ReadonlyArray<{ restaurant: { id: string }; distanceSquared: number }> = await Effect.runPromise(restaurants.listOpenNear({ point, after, limit, maxRadiusM: 50_000 }));
      listed.push(...rows.map((row) => row.restaurant.id));
      if (rows.length < limit) break;
      const last = rows.at(-1)!;
      after = { distanceSquared: last.distanceSquared, id: last.restaurant.id };
    }
    t.same(listed, expected, `pages of ${limit}: every serving restaurant once, nearest first`);
  }
};

const dispatchNearPickup = async (t: TapTest, db: SqlDatabase) => {
  const dispatch = makeSqlDispatchRepository(db);
  const locatedAt = db.dialect === "postgres" ? new Date() : new Date().toISOString();
  const online = db.dialect === "postgres" ? sql`true` : sql`1`;
  const numbers = (count: number) =>
    db.dialect === "postgres"
      ? sql`SELECT g AS i FROM generate_series(0, ${count - 1}) g`
      : sql`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1}) SELECT i FROM n`;
  const seedCouriers = (prefix: string, count: number, latOffset: string) =>
    sql`INSERT INTO dl_couriers (id, user_id, name, online, lat, lng, located_at, created_at)
        SELECT ${prefix} || (100000 + i), ${prefix} || 'user' || i, 'Courier', ${online}, ${point.lat} + ${sql.raw(latOffset)}, ${point.lng} + 0.0, ${locatedAt}, ${locatedAt}
        FROM (${numbers(count)}) numbers`.execute(db.db);
  // Five couriers within 100 m of the pickup; a thousand others 30 to 60 km away (another city).
  await seedCouriers("near", 5, "i * 0.0002");
  await seedCouriers("away", 1000, "0.3 + i * 0.0003");
  await sql`ANALYZE dl_couriers`.execute(db.db);
  const round = () => Effect.runPromise(dispatch.candidates("no-such-delivery", point, 3, 20_000));
  const expected = ["near100000", "near100001", "near100002"];
  if (db.dialect === "postgres") {
    let found: ReadonlyArray<{ id: string }> = [];
    const sent = await sentToPostgres((text) => text.includes('"dl_couriers"'), async () => (found = await round()));
    t.same(found.map((c) => c.id), expected, "the three nearest");
    const read = rowsRead(await measuredPlan(db, sent[0]!), "dl_couriers");
    t.ok(read <= 20, `reads the couriers near the pickup only (${read} rows), none of the thousand 30 km away`);
    const indexes = planNodes(await genericPlan(db, sent[0]!)).flatMap((node) => (typeof node["Index Name"] === "string" ? [node["Index Name"]] : []));
    t.ok(indexes.includes("dl_couriers_online_position"), `the generic plan seeks dl_couriers_online_position: ${indexes.join(", ")}`);
  } else {
    const { result, executed } = await capturePrepared((text) => text.includes('"dl_couriers"'), round);
    t.same(result.map((c) => c.id), expected, "the three nearest");
    for (const [text, parameters] of executed) {
      const details = await planDetails(db, text, parameters);
      t.ok(details.some((d) => /^SEARCH c USING INDEX dl_couriers_online_position \(lat>\? AND lat<\?\)/.test(d)), `the band is read from dl_couriers_online_position: ${details.join(" | ")}`);
    }
  }
};

// One database per dialect for the three (each test starts from the rows it seeds).
forEachDialect(t, "discovery and dispatch read near the point", async (t, db) => {
  await t.test("discovery reads the nearest ring first: a page filled near the point reads none of the band's farther restaurants", (t) => nearestRingFirst(t, db));
  await t.test("discovery's pages through widening rings are the true ranking, every restaurant once", (t) => pagesThroughRings(t, db));
  await t.test("a dispatch round reads the online couriers near the pickup, not every online courier", (t) => dispatchNearPickup(t, db));
}, deliveryTestModules);
