/**
 * Limits: "Every list ... has a bound". A variant's stock is answered at every location at once,
 * so a store's locations are bounded: at most 200 (`maxLocationsPerStore`), the 201st is 422, the
 * database refuses it too (commerce migration 15), and locations added at once past the bound on
 * parallel connections (Postgres) leave exactly 200.
 */
import { Effect } from "effect";
import { randomUUID } from "node:crypto";
import t from "tap";
import { createLocation, maxLocationsPerStore } from "../../core/commerce/CreateStore.js";
import { ValidationFailed } from "../../core/kernel/Errors.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { commerceRuntime, forEachCommerceDialect, seedStore } from "./support.js";

const locationRows = (storeId: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: randomUUID(), store_id: storeId, name: `Depot ${i}`, created_at: new Date().toISOString() }));

t.test("a store has at most 200 locations: the 201st answers 422 and the database refuses it too", (t) =>
  forEachCommerceDialect(t, "locations bounded", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    t.equal(maxLocationsPerStore, 200);
    // seedStore made one; fill up to 199 directly, then the core adds the 200th.
    await db.db.insertInto("shop_locations").values(locationRows(store.id, maxLocationsPerStore - 2)).execute();
    t.ok(await c.run(createLocation(ownerId, store.id, { name: "The 200th" })), "the 200th location is added");
    const refused = await c.attempt(createLocation(ownerId, store.id, { name: "The 201st" }));
    t.ok(!refused.ok && refused.error instanceof ValidationFailed, "the 201st is 422 validation_failed");
    const direct = await db.db.insertInto("shop_locations").values(locationRows(store.id, 1)).execute().then(() => "accepted", () => "refused");
    t.equal(direct, "refused", "the database refuses a 201st location written around the core");
    t.equal(await c.run(Effect.flatMap(StoresRepository, (s) => s.countLocations(store.id))), maxLocationsPerStore);
    const other = await seedStore(c);
    t.ok(await c.run(createLocation(other.ownerId, other.store.id, { name: "Another store's second" })), "the bound is per store");
  }),
);

t.test("locations added at once past the bound leave exactly 200 (parallel connections on Postgres)", (t) =>
  forEachCommerceDialect(t, "locations bound race", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    await db.db.insertInto("shop_locations").values(locationRows(store.id, maxLocationsPerStore - 3)).execute();
    // A loser is refused by the core's count (422) or, having counted before a winner committed, by the database.
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => c.run(createLocation(ownerId, store.id, { name: `Racer ${i}` })).then(() => "added", () => "refused")),
    );
    t.equal(outcomes.filter((o) => o === "added").length, 2, "two of six fit");
    t.equal(await c.run(Effect.flatMap(StoresRepository, (s) => s.countLocations(store.id))), maxLocationsPerStore, "never more than 200");
  }),
);
