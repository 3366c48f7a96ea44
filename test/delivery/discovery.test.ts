/**
 * Discovery (spec: GET /restaurants?lat=&lng=&cursor=): open restaurants whose service zone
 * contains the point, nearest first, in stable keyset pages; missing or out-of-range
 * coordinates are 400 invalid_coordinates; a cursor of another point is 400 invalid_cursor.
 */
import t from "tap";
import { discoverRestaurants } from "../../core/delivery/Discovery.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { createRestaurant, setOpening } from "../../core/delivery/Restaurants.js";
import { forEachDeliveryDialect } from "./support.js";
import { deliveryRuntime, here, sampleMenu, user, type DeliveryRuntime } from "./support.js";

const restaurantAt = async (rt: DeliveryRuntime, name: string, dLat: number, radius: number, open = true) => {
  const owner = user(`owner-${name}`);
  const r = await rt.run(createRestaurant(owner, { name, lat: here.lat + dLat, lng: here.lng, serviceRadiusM: radius, currency: "EUR" }));
  await rt.run(publishMenu(owner, r.id, sampleMenu));
  if (open) await rt.run(setOpening(owner, r.id, "open"));
  return r;
};

t.test("discovery lists open restaurants serving the point, nearest first, in stable keyset pages", (t) =>
  forEachDeliveryDialect(t, "discovery", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const far = await restaurantAt(rt, "far", 0.03, 5000); // ~3.3 km
    const near = await restaurantAt(rt, "near", 0.001, 5000); // ~110 m
    const mid = await restaurantAt(rt, "mid", -0.01, 5000); // ~1.1 km
    await restaurantAt(rt, "closed", 0.002, 5000, false);
    await restaurantAt(rt, "small-zone", 0.02, 1000); // ~2.2 km away, serves 1 km
    const twin = await restaurantAt(rt, "twin", -0.01, 5000); // same distance as mid: the id breaks the tie

    const all = await rt.run(discoverRestaurants({ lat: here.lat, lng: here.lng, limit: 100 }));
    const expected = [near.id, ...[mid.id, twin.id].sort(), far.id];
    t.same(all.data.map((r) => r.restaurant.id), expected, "open and serving only, nearest first, ties by id");
    t.equal(all.next_cursor, null);
    t.ok(Math.abs(all.data[0]!.distanceM - 111) <= 2, `distance of the nearest: ${all.data[0]!.distanceM} m`);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rt.run(discoverRestaurants({ lat: here.lat, lng: here.lng, limit: 1, ...(cursor === undefined ? {} : { cursor }) }));
      seen.push(...page.data.map((r) => r.restaurant.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    t.same(seen, expected, "walking pages of one gives the same order, nothing twice, nothing skipped");

    const first = await rt.run(discoverRestaurants({ lat: here.lat, lng: here.lng, limit: 2 }));
    t.match(await rt.attempt(discoverRestaurants({ lat: here.lat + 0.001, lng: here.lng, cursor: first.next_cursor! })), {
      ok: false,
      error: { code: "invalid_cursor" },
    });
    t.match(await rt.attempt(discoverRestaurants({ lat: here.lat, lng: here.lng, cursor: "garbage" })), { ok: false, error: { code: "invalid_cursor" } });
    for (const bad of [{ lng: 13 }, { lat: 91, lng: 13 }, { lat: 52, lng: -181 }, { lat: Number.NaN, lng: 0 }]) {
      t.match(await rt.attempt(discoverRestaurants(bad)), { ok: false, error: { code: "invalid_coordinates", category: "bad_request" } }, JSON.stringify(bad));
    }
  }),
);
