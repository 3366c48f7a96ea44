/**
 * Discovery (`RestaurantsRepository.listOpenNear`) runs on every customer's search for food. On
 * SQLite it must rank the restaurants of the latitude band from the discovery index alone
 * (delivery migration 7) and read the rows of one page only: before, it read the whole row of
 * every restaurant in the band to compute its distance (~6 ms for 10,000 in a city). The plan of
 * the statement the repository really prepares is read with EXPLAIN QUERY PLAN.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlRestaurantsRepository } from "../../adapters/sql/delivery/SqlRestaurantsRepository.js";
import { openTestDatabase } from "../support/databases.js";
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
