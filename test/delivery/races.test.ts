/**
 * The concurrency rules, raced with real parallel connections on Postgres (and serialized on
 * SQLite): ten couriers accepting one delivery at once elect exactly one winner (issue rule 1),
 * twenty parallel accepts of one order create exactly one delivery (rule 2), a restaurant
 * accept racing the acceptance deadline ends in exactly one outcome, and a placement racing
 * the release of its quote either writes its order with the authorization held or writes none
 * and the authorization is voided.
 */
import t from "tap";
import { Effect } from "effect";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { releasePlacement } from "../../core/delivery/PlacementRelease.js";
import { QuoteId } from "../../core/delivery/model/Ids.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { expireAcceptance } from "../../core/delivery/AcceptanceDeadline.js";
import { acceptOrder } from "../../core/delivery/AcceptOrder.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { forEachDeliveryDialect } from "./support.js";
import { at } from "../worker/fixtures.js";
import { acceptedOrder, authorizedOrder, deliveryRuntime, onlineCouriers, openRestaurant, quoteFor, user } from "./support.js";

const count = async (db: Parameters<Parameters<typeof forEachDeliveryDialect>[2]>[1], table: string, where?: [string, string]) => {
  let query = db.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n"));
  if (where !== undefined) query = query.where(where[0], "=", where[1]);
  return Number((await query.executeTakeFirstOrThrow()).n);
};

t.test("ten couriers accept offers for one delivery at once: exactly one wins, nine get 409 naming the winner, one CourierAssigned", (t) =>
  forEachDeliveryDialect(t, "offer race", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 10 });
    const fixture = await openRestaurant(rt);
    const couriers = await onlineCouriers(rt, 10);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const offers = await Promise.all(couriers.map(async (c) => ({ c, offer: (await rt.run(listMyOffers(c.principal)))[0]! })));
    t.equal(offers.filter((o) => o.offer !== undefined).length, 10, "every courier holds an offer for the delivery");

    const answers = await Promise.all(offers.map(({ c, offer }) => rt.attempt(acceptOffer(c.principal, offer.id))));
    const winners = answers.filter((a) => a.ok);
    const losers = answers.flatMap((a) => (a.ok ? [] : [a.error]));
    t.equal(winners.length, 1, "exactly one courier wins");
    t.equal(losers.length, 9, "nine lose");
    const winner = winners[0]?.ok === true ? winners[0].value : undefined;
    t.ok(winner !== undefined);
    for (const error of losers) {
      t.match(error, { _tag: "DeliveryAlreadyAssigned", code: "delivery_already_assigned", category: "conflict", winner: winner?.courierId }, "a loser learns who won");
    }
    const row = await db.db.selectFrom("dl_deliveries").selectAll().where("id", "=", accepted.delivery.id).executeTakeFirstOrThrow();
    t.equal(row.courier_id, winner?.courierId, "courier_id is set once, to the winner");
    t.equal(Number(row.version), 2, "one assignment, one version step");
    t.equal(await count(db, "outbox", ["type", "CourierAssigned"]), 1, "one CourierAssigned");
    const statuses = (await db.db.selectFrom("dl_courier_offers").select("status").execute()).map((r) => String(r.status)).sort();
    t.same(statuses, ["accepted", ...Array(9).fill("lost")], "one offer accepted, the others lost");

    const again = await rt.attempt(acceptOffer(offers.find(({ c }) => c.courier.id === winner?.courierId)!.c.principal, offers.find(({ c }) => c.courier.id === winner?.courierId)!.offer.id));
    t.match(again, { ok: true, value: { courierId: winner?.courierId, version: 2 } }, "the winner accepting again answers the same");
  }),
);

t.test("twenty repeated accepts of one restaurant order in parallel create exactly one delivery", (t) =>
  forEachDeliveryDialect(t, "accept race", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const placed = await authorizedOrder(rt, "cust-1", fixture);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => rt.attempt(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 20 }))),
    );
    t.ok(answers.every((a) => a.ok), "every repeat answers 200");
    const deliveryIds = new Set(answers.map((a) => (a.ok ? a.value.delivery.id : "")));
    t.equal(deliveryIds.size, 1, "the same delivery_id every time");
    t.equal(await count(db, "dl_deliveries"), 1, "exactly one delivery row");
    t.equal(await count(db, "outbox", ["type", "RestaurantAcceptedOrder"]), 1, "one RestaurantAcceptedOrder");
  }),
);

t.test("a restaurant accept racing the acceptance deadline ends in exactly one outcome", (t) =>
  forEachDeliveryDialect(t, "accept vs deadline", async (t, db) => {
    const rt = deliveryRuntime(t, db, { acceptDeadlineSeconds: 60 });
    const fixture = await openRestaurant(rt);
    const outcomes = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const placed = await authorizedOrder(rt, `cust-${round}`, fixture);
      const late = placed.workflow.acceptDeadline.getTime() + 1000;
      const [accept, deadline] = await Promise.all([
        rt.attempt(at(late)(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 10 }))),
        rt.attempt(at(late)(expireAcceptance(placed.order.id))),
      ]);
      const view = await rt.run(getOrder(user(`cust-${round}`), placed.order.id));
      const deliveries = await count(db, "dl_deliveries", ["order_id", placed.order.id]);
      if (accept.ok) {
        t.match(deadline, { ok: true, value: "settled" }, `round ${round}: the deadline found the order accepted`);
        t.equal(view.workflow.status, "accepted");
        t.equal(deliveries, 1);
        outcomes.add("accepted");
      } else {
        t.match(accept.error, { code: "order_not_acceptable", category: "conflict" }, `round ${round}: the late accept is 409`);
        t.match(deadline, { ok: true, value: "cancelled" });
        t.equal(view.workflow.status, "cancelled");
        t.equal(view.workflow.paymentState, "voided", "the authorization is voided");
        t.equal(deliveries, 0, "no delivery for a cancelled order");
        outcomes.add("cancelled");
      }
    }
    t.ok(outcomes.size >= 1, `outcomes seen: ${[...outcomes].join(", ")}`);
  }),
);

t.test("placements racing the release of their quotes: every order keeps its authorization held, and no authorization is held without an order", (t) =>
  forEachDeliveryDialect(t, "placement vs release", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const pause = () => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, Math.random() * 15)));
    // The provider takes its time, so the release can land before, during or after the authorization.
    const slow = PaymentGateway.of({ ...rt.gateway, authorize: (request) => pause().pipe(Effect.zipRight(rt.gateway.authorize(request)), Effect.zipLeft(pause())) });
    const quotes = [];
    for (let i = 0; i < 8; i++) quotes.push(await quoteFor(rt, `cust-${i}`, fixture));
    const outcomes = await Promise.all(
      quotes.map(async (quote, i) => {
        const placing = rt.attempt(placeOrder(user(`cust-${i}`), { quoteId: quote.id, paymentMethod: "pm_card_visa" }).pipe(Effect.provideService(PaymentGateway, slow)));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
        const releasing = rt.attempt(releasePlacement(QuoteId.make(quote.id)));
        return { placing: await placing, releasing: await releasing };
      }),
    );
    const orders = await db.db.selectFrom("dl_restaurant_orders").select(["order_id", "payment_id"]).execute();
    const held = rt.gateway.payments().filter((p) => p.status === "requires_capture");
    t.equal(held.length, orders.length, "as many authorizations held as orders written");
    t.same(new Set(held.map((p) => p.paymentId)), new Set(orders.map((o) => o.payment_id)), "each held authorization is an order's");
    for (const { placing, releasing } of outcomes) {
      t.ok(releasing.ok, "the release itself never fails here");
      if (!placing.ok) t.match(placing.error, { category: "conflict" }, "a placement that lost is told so (409)");
    }
    t.ok(orders.length + outcomes.filter((o) => !o.placing.ok).length === quotes.length, `${orders.length} placed, ${quotes.length - orders.length} released`);
  }),
);
