/**
 * Object-level authorization (spec: Authentication 1-3; endpoints rule 1): another
 * restaurant's order, another courier's offer, another customer's order answer NotFound,
 * exactly like an unknown id.
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { acceptOrder, rejectOrder } from "../../core/delivery/AcceptOrder.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { listIncomingOrders } from "../../core/delivery/IncomingOrders.js";
import { addStaff, setOpening } from "../../core/delivery/Restaurants.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { forEachDeliveryDialect } from "./support.js";
import { authorizedOrder, deliveryRuntime, onlineCouriers, openRestaurant, sampleMenu, user } from "./support.js";

t.test("another restaurant's order, another courier's offer and another customer's order are NotFound", (t) =>
  forEachDeliveryDialect(t, "tenant isolation", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const mine = await openRestaurant(rt, "owner-a");
    const theirs = await openRestaurant(rt, "owner-b");
    const [c1, c2] = await onlineCouriers(rt, 2);
    const order = await authorizedOrder(rt, "cust-1", mine);
    const unknown = "00000000-0000-7000-8000-000000000000";

    const notFound = { ok: false, error: { _tag: "NotFound", code: "not_found" } };
    t.match(await rt.attempt(acceptOrder(user(theirs.owner), order.order.id, { prepTimeMinutes: 10 })), notFound, "another restaurant's staff cannot accept");
    t.match(await rt.attempt(acceptOrder(user(theirs.owner), unknown, { prepTimeMinutes: 10 })), notFound, "same answer as an unknown order");
    t.match(await rt.attempt(rejectOrder(user(theirs.owner), order.order.id, { reason: "no" })), notFound, "nor reject");
    t.match(await rt.attempt(getOrder(user("cust-2"), order.order.id)), notFound, "another customer's order");
    t.match(await rt.attempt(publishMenu(user(theirs.owner), mine.restaurant.id, sampleMenu)), notFound, "another restaurant's menu");
    t.match(await rt.attempt(setOpening(user("cust-1"), mine.restaurant.id, "closed")), notFound, "a customer cannot close it");

    await rt.run(acceptOrder(user(mine.owner), order.order.id, { prepTimeMinutes: 10 }));
    const offerOfC1 = (await rt.run(listMyOffers(c1!.principal)))[0]!;
    t.match(await rt.attempt(acceptOffer(c2!.principal, offerOfC1.id)), notFound, "another courier's offer");
    t.match(await rt.attempt(acceptOffer(user("not-a-courier"), offerOfC1.id)), notFound, "a non-courier");
    t.match(await rt.attempt(acceptOffer(c2!.principal, unknown)), notFound, "an unknown offer");

    await rt.run(addStaff(user(mine.owner), mine.restaurant.id, "cook-1"));
    const second = await authorizedOrder(rt, "cust-1", mine);
    t.match(await rt.attempt(acceptOrder(user("cook-1"), second.order.id, { prepTimeMinutes: 5 })), { ok: true }, "added staff may accept");
  }),
);

t.test("staff list their restaurant's open incoming orders, oldest first, in keyset pages; other restaurants' staff get 404", (t) =>
  forEachDeliveryDialect(t, "incoming orders", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const mine = await openRestaurant(rt, "owner-a");
    const theirs = await openRestaurant(rt, "owner-b");
    const placed = [];
    for (let i = 0; i < 3; i++) placed.push(await authorizedOrder(rt, `cust-${i}`, mine));
    await authorizedOrder(rt, "cust-x", theirs);
    await rt.run(rejectOrder(user(mine.owner), placed[1]!.order.id, { reason: "closed kitchen" }));
    const first = await rt.run(listIncomingOrders(user(mine.owner), mine.restaurant.id, { limit: 1 }));
    const second = await rt.run(listIncomingOrders(user(mine.owner), mine.restaurant.id, { limit: 1, cursor: first.next_cursor! }));
    t.same([...first.data, ...second.data].map((w) => w.orderId), [placed[0]!.order.id, placed[2]!.order.id], "open orders only, oldest first");
    t.equal(second.next_cursor, null);
    t.match(await rt.attempt(listIncomingOrders(user(theirs.owner), mine.restaurant.id)), { ok: false, error: { code: "not_found" } });
  }),
);
