/**
 * Money is answered with its currency (docs/conventions.md, HTTP: "Money is `*_minor` integers
 * plus an ISO 4217 `currency`"): the menu (published and public) carries its restaurant's
 * currency, in which every item and modifier is priced; a substitution carries its order's
 * currency on every route that answers it; a changed menu's `diff` carries the restaurant's currency
 * too. The restaurant here sells in GBP (the fixture's default
 * is EUR), so a currency written into the code would not pass. The OpenAPI document declares no
 * delivery answer with an amount and no currency.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { moneyWithoutCurrency, type OpenApiDocument } from "../support/money-without-currency.js";
import { freshKey, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`money is answered with its currency: the menu in its restaurant's, a substitution in its order's, on every route [${dialect}]`, async (t) => {
    const { server, as, anonymous } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t, { currency: "GBP" });

    const published = await owner.post(`/restaurants/${r.restaurantId}/menus`, {
      items: [
        { id: r.pizza.id, name: "Margherita", price_minor: 950, modifiers: [{ id: r.pizza.modifiers[0].id, name: "Extra cheese", price_minor: 150 }] },
        { id: r.drink.id, name: "Lemonade", price_minor: 350 },
        { name: "Quattro Formaggi", price_minor: 1400 },
        { name: "Orange juice", price_minor: 400 },
      ],
    });
    t.match(published, { status: 201, body: { currency: "GBP", items: [{ price_minor: 950 }] } }, "POST /restaurants/:id/menus: the menu's prices with their currency");
    const menu = await anonymous.get(`/restaurants/${r.restaurantId}/menu`);
    t.match(menu, { status: 200, body: { currency: "GBP", version: published.body.version } }, "GET /restaurants/:id/menu (public): the menu's prices with their currency");
    const [quattro, juice] = ["Quattro Formaggi", "Orange juice"].map((name) => (menu.body.items as Array<{ id: string; name: string }>).find((i) => i.name === name)!);

    t.match(
      await customer.post("/orders/quote", quoteBody(r)),
      { status: 409, body: { code: "menu_changed", diff: { currency: "GBP", changed_prices: [{ item_id: r.pizza.id, quoted_price_minor: 900, current_price_minor: 950 }] } } },
      "409 menu_changed: the diff's prices with their currency",
    );
    const quote = await customer.post("/orders/quote", { ...quoteBody(r), menu_version: published.body.version });
    const placed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    t.match(placed, { body: { currency: "GBP" } }, "the order is in the restaurant's currency");
    const orderId = String(placed.body.id);

    const pizzaSwap = await owner.post(`/restaurant-orders/${orderId}/substitutions`, { line_no: 1, item_id: quattro!.id, reason: "out of mozzarella" });
    t.match(pizzaSwap, { status: 201, body: { replacement_unit_price_minor: 1400, currency: "GBP" } }, "POST /restaurant-orders/:id/substitutions");
    const drinkSwap = await owner.post(`/restaurant-orders/${orderId}/substitutions`, { line_no: 2, item_id: juice!.id, reason: "out of lemons" });
    t.match(drinkSwap, { status: 201, body: { currency: "GBP" } }, "POST /restaurant-orders/:id/substitutions (another line)");
    t.match(
      await customer.get(`/orders/${orderId}/substitutions`),
      { status: 200, body: { data: [{ line_no: 1, currency: "GBP" }, { line_no: 2, currency: "GBP" }], next_cursor: null } },
      "GET /orders/:id/substitutions: each with its currency",
    );
    t.match(
      await customer.post(`/orders/${orderId}/substitutions/${String(pizzaSwap.body.id)}/accept`),
      { status: 200, body: { status: "accepted", charged_line_total_minor: pizzaSwap.body.charged_line_total_minor, currency: "GBP" } },
      "POST …/accept",
    );
    t.match(
      await customer.post(`/orders/${orderId}/substitutions/${String(drinkSwap.body.id)}/refuse`),
      { status: 200, body: { status: "refused", currency: "GBP" } },
      "POST …/refuse",
    );
    t.match(
      await customer.post(`/orders/${orderId}/substitutions/${String(drinkSwap.body.id)}/refuse`),
      { status: 200, body: { status: "refused", currency: "GBP" } },
      "POST …/refuse repeated answers the same substitution, with its currency",
    );

    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    t.same(moneyWithoutCurrency(document, "delivery"), [], "the OpenAPI document declares no delivery answer with an amount and no currency");
  });
}
