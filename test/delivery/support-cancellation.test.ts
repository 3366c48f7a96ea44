/**
 * Spec, What the service does: "Every manual reassignment, refund and state override records actor
 * and reason"; Authentication 6: "Support overrides require a reason and step-up authentication".
 * Support's state override (core/delivery/CancelAsDispatcher.ts): a dispatcher of the order's region
 * cancels an accepted order whose meal is not picked up; the delivery's status history keeps actor
 * and reason, its offers are lost, the courier is free again, and the customer's authorization is
 * voided once. Before, nothing could cancel an accepted order or its delivery: an order nobody
 * could deliver kept its authorization held until the card's hold lapsed.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { cancelOrderAsDispatcher } from "../../core/delivery/CancelAsDispatcher.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import type { Principal } from "../../ports/Principal.js";
import { hostSecret } from "../hosts/support.js";
import { dialects } from "../support/databases.js";
import { freshKey, onlineCourier, openRestaurant as openRestaurantOverHttp, quoteBody, startDeliveryServer, eventually } from "./http-support.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, pickedUpOrder, user } from "./support.js";

const dispatcherId = "dispatcher-cancel";
const region = { minLat: 52, minLng: 13, maxLat: 53, maxLng: 14 };
const elsewhereId = "dispatcher-cancel-elsewhere";
const dispatchers = [
  { userId: dispatcherId, region },
  { userId: elsewhereId, region: { minLat: 40, minLng: 2, maxLat: 41, maxLng: 3 } },
];
const recent = (userId = dispatcherId): Principal => ({ kind: "user", userId, authTime: Math.floor(Date.now() / 1000) });

t.test("support cancels an accepted order whose meal is not picked up: actor and reason in the delivery's history, offers lost, courier freed, authorization voided once", (t) =>
  forEachDeliveryDialect(t, "support cancellation", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-sc");
    const [courier] = await onlineCouriers(rt, 1, "sc");
    const { placed, accepted } = await acceptedOrder(rt, "customer-sc", fixture);
    const deliveryId = accepted.delivery.id;
    const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === deliveryId)!;
    await rt.run(acceptOffer(courier!.principal, offer.id));

    const cancelled = await rt.run(cancelOrderAsDispatcher(recent(), placed.order.id, { reason: " the kitchen caught fire " }));
    t.match(cancelled, { orderId: placed.order.id, status: "cancelled", paymentState: "voided", reason: "the kitchen caught fire" }, "cancelled and its authorization voided");
    t.equal(rt.gateway.effects.cancel, 1, "voided once");
    const delivery = await rt.run(Effect.flatMap(DispatchRepository, (d) => d.findDelivery(deliveryId)));
    t.match(delivery, { status: "cancelled" });
    const history = await db.db.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", deliveryId).where("to_status", "=", "cancelled").execute();
    t.match(history, [{ from_status: "assigned", actor_id: dispatcherId, reason: "the kitchen caught fire", transition_id: /^override:/ }], "actor and reason are recorded");
    const events = await db.db.selectFrom("outbox").select("type").where("type", "in", ["OrderCancelled", "DeliveryStatusChanged"]).execute();
    t.same(events.map((e: { type: string }) => e.type).sort(), ["DeliveryStatusChanged", "OrderCancelled"], "the restaurant, the customer and the courier's apps are told");
    t.match(
      await rt.attempt(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: "p", status: "picked_up", expectedVersion: delivery!.version })),
      { ok: false, error: { code: "illegal_delivery_transition" } },
      "the courier can no longer pick it up",
    );

    // Repeating it answers the cancelled order and voids nothing more.
    t.match(await rt.run(cancelOrderAsDispatcher(recent(), placed.order.id, { reason: "again" })), { status: "cancelled", reason: "the kitchen caught fire" });
    t.equal(rt.gateway.effects.cancel, 1, "still voided once");

    // The courier is free for the next delivery.
    const next = await acceptedOrder(rt, "customer-sc2", fixture);
    const nextOffer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === next.accepted.delivery.id)!;
    t.match(await rt.run(acceptOffer(courier!.principal, nextOffer.id)), { status: "assigned" }, "no longer busy");
  }),
);

t.test("who may cancel: a dispatcher of the order's region (else 404), signed in recently (else 403), with a reason (else 422), before pickup (else 409)", (t) =>
  forEachDeliveryDialect(t, "support cancellation guards", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-scg");
    await onlineCouriers(rt, 1, "scg");
    const { placed } = await acceptedOrder(rt, "customer-scg", fixture);
    const cancel = (principal: Principal, orderId: string, reason: string) => rt.attempt(cancelOrderAsDispatcher(principal, orderId, { reason }));
    t.match(await cancel(user("customer-scg"), placed.order.id, "x"), { ok: false, error: { code: "not_found" } }, "the customer: 404");
    t.match(await cancel(user(fixture.owner), placed.order.id, "x"), { ok: false, error: { code: "not_found" } }, "the restaurant: 404");
    t.match(await cancel(recent(elsewhereId), placed.order.id, "x"), { ok: false, error: { code: "not_found" } }, "another region: 404");
    t.match(await cancel(recent(), "no-such-order", "x"), { ok: false, error: { code: "not_found" } }, "an unknown order: 404");
    t.match(await cancel(user(dispatcherId), placed.order.id, "x"), { ok: false, error: { code: "step_up_required" } }, "step-up");
    t.match(await cancel(recent(), placed.order.id, " "), { ok: false, error: { code: "validation_failed" } }, "a reason");
    t.match(await cancel(recent(), placed.order.id, "x".repeat(501)), { ok: false, error: { code: "validation_failed" } }, "at most 500 characters");
    const { placed: onItsWay } = await pickedUpOrder(rt, "customer-scg2", fixture);
    t.match(await cancel(recent(), onItsWay.order.id, "x"), { ok: false, error: { code: "order_not_cancellable", deliveryStatus: "picked_up" } }, "a meal on its way: 409");
    t.equal(rt.gateway.effects.cancel, 0, "nothing was voided");
  }),
);

t.test("a cancellation racing the courier's pickup on parallel connections: exactly one wins, and the order agrees with its delivery", (t) =>
  forEachDeliveryDialect(t, "cancellation against pickup", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 20 }, dispatchers);
    const fixture = await openRestaurant(rt, "owner-scr");
    const races = [];
    for (let i = 0; i < 6; i++) {
      const [courier] = await onlineCouriers(rt, 1, `scr${i}`);
      const { placed, accepted } = await acceptedOrder(rt, `customer-scr-${i}`, fixture);
      const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === accepted.delivery.id)!;
      const won = await rt.run(acceptOffer(courier!.principal, offer.id));
      races.push({ orderId: placed.order.id, deliveryId: accepted.delivery.id, courier: courier!, version: won.version });
    }
    const answers = await Promise.all(
      races.flatMap((r) => [
        rt.attempt(updateDeliveryStatus(r.courier.principal, r.deliveryId, { transitionId: "p", status: "picked_up", expectedVersion: r.version })),
        rt.attempt(cancelOrderAsDispatcher(recent(), r.orderId, { reason: "race" })),
      ]),
    );
    for (const [i, r] of races.entries()) {
      const [pickup, cancel] = [answers[2 * i]!, answers[2 * i + 1]!];
      t.equal([pickup.ok, cancel.ok].filter(Boolean).length, 1, `order ${i}: exactly one of pickup and cancellation`);
      const delivery = await rt.run(Effect.flatMap(DispatchRepository, (d) => d.findDelivery(r.deliveryId)));
      const workflow = await db.db.selectFrom("dl_restaurant_orders").select(["status"]).where("order_id", "=", r.orderId).executeTakeFirstOrThrow();
      t.equal(workflow.status, delivery!.status === "cancelled" ? "cancelled" : "accepted", `order ${i}: the order agrees with its delivery (${delivery!.status})`);
    }
  }),
);

for (const dialect of dialects) {
  t.test(`support's cancellation over HTTP: Idempotency-Key, step-up, 404 outside the region, problem+json for bad input [${dialect}]`, async (t) => {
    const dispatcher = randomUUID();
    const other = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcher}=52.0:13.0:53.0:14.0,${other}=40.0:2.0:41.0:3.0` });
    const owner = as();
    const customer = as();
    const r = await openRestaurantOverHttp(owner, t);
    await onlineCourier(as());
    const quote = await customer.post("/orders/quote", quoteBody(r));
    const placed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    const orderId = String(placed.body.id);
    await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 15 });
    const call = async (userId: string, authTime: number | undefined, body: unknown, key?: string) => {
      const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600, ...(authTime === undefined ? {} : { authTime }) });
      const response = await fetch(`${base}/operator/orders/${orderId}/cancel`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: response.status, type: response.headers.get("content-type") ?? "", body: (await response.json()) as Record<string, any> };
    };
    const now = Math.floor(Date.now() / 1000);
    t.match(await call(dispatcher, now, { reason: "closed" }), { status: 400, body: { code: "idempotency_key_required" } });
    t.match(await call(other, now, { reason: "closed" }, freshKey()), { status: 404 }, "another region's dispatcher");
    t.match(await call(randomUUID(), now, { reason: "closed" }, freshKey()), { status: 404 }, "not a dispatcher");
    t.match(await call(dispatcher, undefined, { reason: "closed" }, freshKey()), { status: 403, body: { code: "step_up_required" } });
    for (const body of [{}, { reason: "" }, { reason: 5 }, "{nope"]) {
      const answer = await call(dispatcher, now, body, freshKey());
      t.ok(answer.status === 400 || answer.status === 422, `bad input ${JSON.stringify(body)}: ${answer.status}`);
      t.match(answer.type, /problem\+json/);
    }
    t.match(await call(dispatcher, now, { reason: "the kitchen closed" }, freshKey()), { status: 200, body: { order_id: orderId, status: "cancelled", reason: "the kitchen closed" } });
    const order = await eventually(
      () => customer.get(`/orders/${orderId}`),
      (a) => a.body.payment_state === "voided",
    );
    t.match(order.body, { status: "cancelled", payment_state: "voided", delivery: { status: "cancelled" } }, "the customer's authorization is released");
  });
}
