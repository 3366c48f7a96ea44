/**
 * Spec rule 6 and the quote rules: a changed menu between quote and order never charges the old
 * price silently (409 menu_changed with a resolvable diff), availability toggles are seen by
 * the next quote at once, quotes expire (409 quote_expired), and drop-offs outside the zone,
 * closed restaurants and invalid lines are 422.
 */
import t from "tap";
import { publishMenu, setItemAvailability } from "../../core/delivery/Menus.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { quoteOrder } from "../../core/delivery/QuoteOrder.js";
import { setOpening } from "../../core/delivery/Restaurants.js";
import { forEachDeliveryDialect } from "./support.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, here, openRestaurant, quoteFor, user } from "./support.js";

t.test("a quote against an older menu version is 409 menu_changed with the current version, changed prices and unavailable items", (t) =>
  forEachDeliveryDialect(t, "stale menu quote", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [pizza, drink] = fixture.menu.items;
    const v2 = await rt.run(
      publishMenu(user(fixture.owner), fixture.restaurant.id, [
        { id: pizza!.id, name: "Margherita", priceMinor: 1100 },
        { id: drink!.id, name: "Lemonade", priceMinor: 350, available: false },
      ]),
    );
    t.equal(v2.version, 2);
    const stale = await rt.attempt(
      quoteOrder(user("cust-1"), {
        restaurantId: fixture.restaurant.id,
        menuVersion: 1,
        lines: [
          { itemId: pizza!.id, quantity: 1, modifierIds: [] },
          { itemId: drink!.id, quantity: 1, modifierIds: [] },
        ],
        dropoff: { lat: here.lat, lng: here.lng, address: "Here 1" },
      }),
    );
    t.match(stale, {
      ok: false,
      error: {
        code: "menu_changed",
        category: "conflict",
        diff: { current_version: 2, changed_prices: [{ item_id: pizza!.id, quoted_price_minor: 900, current_price_minor: 1100 }], unavailable_items: [drink!.id] },
      },
    });
    const fresh = await rt.run(
      quoteOrder(user("cust-1"), {
        restaurantId: fixture.restaurant.id,
        menuVersion: 2,
        lines: [{ itemId: pizza!.id, quantity: 1, modifierIds: [] }],
        dropoff: { lat: here.lat, lng: here.lng, address: "Here 1" },
      }),
    );
    t.equal(fresh.subtotalMinor, 1100, "the diff resolves: quoting the current version prices it anew");
  }),
);

t.test("a menu changed between quote and order is 409 with the diff and nothing is authorized", (t) =>
  forEachDeliveryDialect(t, "menu changed before order", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    const [pizza, drink] = fixture.menu.items;
    await rt.run(
      publishMenu(user(fixture.owner), fixture.restaurant.id, [
        { id: pizza!.id, name: "Margherita", priceMinor: 1200, modifiers: pizza!.modifiers.map((m) => ({ id: m.id, name: m.name, priceMinor: m.price_minor })) },
        { id: drink!.id, name: "Lemonade", priceMinor: 350 },
      ]),
    );
    const placed = await rt.attempt(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
    t.match(placed, { ok: false, error: { code: "menu_changed", diff: { current_version: 2, changed_prices: [{ item_id: pizza!.id, current_price_minor: 1200 }] } } });
    t.equal(rt.gateway.effects.authorize, 0, "the old price was never authorized");
    t.equal(Number((await db.db.selectFrom("dl_orders").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n), 0, "no order written");
  }),
);

t.test("an availability toggle is seen by the next quote at once: unavailable is 409 menu_changed listing it; available again, it quotes", (t) =>
  forEachDeliveryDialect(t, "unavailable item", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [pizza, drink] = fixture.menu.items;
    await rt.run(setItemAvailability(user(fixture.owner), fixture.restaurant.id, drink!.id, false));
    const request = {
      restaurantId: fixture.restaurant.id,
      menuVersion: 1,
      lines: [
        { itemId: pizza!.id, quantity: 1, modifierIds: [] },
        { itemId: drink!.id, quantity: 1, modifierIds: [] },
      ],
      dropoff: { lat: here.lat, lng: here.lng, address: "Here 1" },
    };
    t.match(await rt.attempt(quoteOrder(user("cust-1"), request)), { ok: false, error: { code: "menu_changed", diff: { current_version: 1, unavailable_items: [drink!.id] } } });
    await rt.run(setItemAvailability(user(fixture.owner), fixture.restaurant.id, drink!.id, true));
    t.match(await rt.attempt(quoteOrder(user("cust-1"), request)), { ok: true });
    t.match(await rt.attempt(setItemAvailability(user("stranger"), fixture.restaurant.id, drink!.id, false)), { ok: false, error: { code: "not_found" } }, "only staff toggle");
  }),
);

t.test("an expired quote is 409 quote_expired", (t) =>
  forEachDeliveryDialect(t, "quote expiry", async (t, db) => {
    const rt = deliveryRuntime(t, db, { quoteTtlSeconds: 60 });
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    const late = at(quote.expiresAt.getTime() + 1)(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
    t.match(await rt.attempt(late), { ok: false, error: { code: "quote_expired", category: "conflict" } });
    t.equal(rt.gateway.effects.authorize, 0);
  }),
);

t.test("a drop-off outside the zone, a closed restaurant and invalid lines are 422", (t) =>
  forEachDeliveryDialect(t, "quote 422", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [pizza] = fixture.menu.items;
    const base = { restaurantId: fixture.restaurant.id, menuVersion: 1, lines: [{ itemId: pizza!.id, quantity: 1, modifierIds: [] }], dropoff: { lat: here.lat, lng: here.lng, address: "Here" } };
    t.match(await rt.attempt(quoteOrder(user("c"), { ...base, dropoff: { lat: here.lat + 0.1, lng: here.lng, address: "Far away" } })), {
      ok: false,
      error: { code: "outside_service_zone", category: "unprocessable" },
    });
    t.match(await rt.attempt(quoteOrder(user("c"), { ...base, lines: [{ itemId: pizza!.id, quantity: 0, modifierIds: [] }] })), { ok: false, error: { code: "validation_failed" } });
    t.match(await rt.attempt(quoteOrder(user("c"), { ...base, lines: [{ itemId: pizza!.id, quantity: 1, modifierIds: ["nope"] }] })), { ok: false, error: { code: "validation_failed" } });
    t.match(await rt.attempt(quoteOrder(user("c"), { ...base, lines: [] })), { ok: false, error: { code: "validation_failed" } });
    await rt.run(setOpening(user(fixture.owner), fixture.restaurant.id, "closed"));
    t.match(await rt.attempt(quoteOrder(user("c"), base)), { ok: false, error: { code: "restaurant_closed", category: "unprocessable" } });
  }),
);

/*
 * Menus are versioned and priced at order time (Resources): a quote prices a chosen modifier by
 * its id, so two modifiers of one item may not share an id (the quote would price the first
 * whichever the customer chose); a modifier name is 1 to 200 characters, like an item's. Both
 * are bad input: 422 on the field, and nothing is published.
 */
t.test("a menu whose item has two modifiers with one id, or a modifier name over 200 characters, is 422 and not published", (t) =>
  forEachDeliveryDialect(t, "menu modifiers", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const twice = await rt.attempt(
      publishMenu(user(fixture.owner), fixture.restaurant.id, [
        { name: "Margherita", priceMinor: 900, modifiers: [{ id: "cheese", name: "Extra cheese", priceMinor: 150 }, { id: "cheese", name: "Truffle", priceMinor: 2500 }] },
      ]),
    );
    t.match(twice, { ok: false, error: { code: "validation_failed", errors: [{ path: "items.0.modifiers.1.id" }] } }, "a modifier id twice in one item");
    const long = await rt.attempt(publishMenu(user(fixture.owner), fixture.restaurant.id, [{ name: "Margherita", priceMinor: 900, modifiers: [{ name: "x".repeat(201), priceMinor: 150 }] }]));
    t.match(long, { ok: false, error: { code: "validation_failed", errors: [{ path: "items.0.modifiers.0.name" }] } }, "a modifier name over 200 characters");
    const restaurant = await db.db.selectFrom("dl_restaurants").select("menu_version").where("id", "=", fixture.restaurant.id).executeTakeFirstOrThrow();
    t.equal(Number(restaurant.menu_version), fixture.menu.version, "no version was published");
    const sameIdOtherItems = await rt.run(
      publishMenu(user(fixture.owner), fixture.restaurant.id, [
        { name: "Margherita", priceMinor: 900, modifiers: [{ id: "cheese", name: "Extra cheese", priceMinor: 150 }] },
        { name: "Marinara", priceMinor: 800, modifiers: [{ id: "cheese", name: "Extra cheese", priceMinor: 150 }] },
      ]),
    );
    t.equal(sameIdOtherItems.version, fixture.menu.version + 1, "one modifier id on two items is fine");
  }),
);
