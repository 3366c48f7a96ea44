/**
 * A menu is answered with one currency, its restaurant's (docs/conventions.md, HTTP: money is
 * `*_minor` plus its `currency`): every published version was priced in it, so it never changes.
 * The database keeps that too (delivery migration 19): a write that goes around the core cannot
 * move a restaurant to another currency, while its other fields still change.
 */
import t from "tap";
import { deliveryRuntime, forEachDeliveryDialect, openRestaurant } from "./support.js";

t.test("a restaurant's currency never changes, also in the database: the menu's prices keep the currency they were published in", (t) =>
  forEachDeliveryDialect(t, "restaurant currency fixed", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const { restaurant } = await openRestaurant(rt, "owner-1", "GBP");
    const row = () => db.db.updateTable("dl_restaurants").where("id", "=", restaurant.id);
    await t.rejects(row().set({ currency: "USD" }).execute(), "the database refuses another currency");
    await row().set({ name: "Trattoria renamed" }).execute();
    const kept = await db.db.selectFrom("dl_restaurants").select(["name", "currency"]).where("id", "=", restaurant.id).executeTakeFirstOrThrow();
    t.same(kept, { name: "Trattoria renamed", currency: "GBP" }, "other fields change; the currency stays");
  }),
);
