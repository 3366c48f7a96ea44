/**
 * Support's refund path over HTTP on the reference server with the real payment module (SQLite
 * and Postgres): POST /operator/orders/:id/refund needs an Idempotency-Key, a dispatcher of the
 * order's region (else 404), a recent sign-in (else 403 step_up_required) and a reason; every bad
 * input is problem+json; the payment is refunded once and the settlement reversed; the refunds are
 * read with GET /operator/orders/:id/refunds. (The rules in depth: support-refunds.test.ts.)
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret } from "../hosts/support.js";
import { dialects, type TapTest } from "../support/databases.js";
import { eventually, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer, type Client } from "./http-support.js";

/** An order placed, accepted, delivered and captured over HTTP (in EUR unless told). */
const deliveredOrder = async (t: TapTest, as: () => Client, currency = "EUR") => {
  const owner = as();
  const customer = as();
  const courier = as();
  const r = await openRestaurant(owner, t, { currency });
  await onlineCourier(courier);
  const quote = await customer.post("/orders/quote", quoteBody(r));
  const placed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
  const orderId = String(placed.body.id);
  const accepted = await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 15 });
  const deliveryId = String(accepted.body.delivery_id);
  const offers = await eventually(
    () => courier.get("/couriers/me/offers"),
    (a) => (a.body.data ?? []).length > 0,
  );
  const won = await courier.post(`/courier-offers/${offers.body.data[0].id}/accept`, {}, freshKey());
  const picked = await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: won.body.version });
  await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "d", status: "delivered", expected_version: picked.body.version });
  const order = await eventually(
    () => customer.get(`/orders/${orderId}`),
    (a) => a.body.payment_state === "captured",
  );
  t.match(order.body, { status: "completed", payment_state: "captured" }, "delivered and captured");
  return { orderId, owner, customer, totalMinor: Number(order.body.total_minor) };
};

for (const dialect of dialects) {
  t.test(`support refunds a delivered order over HTTP: a dispatcher of its region, step-up, Idempotency-Key, problem+json for bad input [${dialect}]`, async (t) => {
    const dispatcherId = randomUUID();
    const elsewhereId = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, {
      DELIVERY_DISPATCHERS: `${dispatcherId}=52.0:13.0:53.0:14.0,${elsewhereId}=40.0:2.0:41.0:3.0`,
    });
    const call = async (userId: string, authTime: number | undefined, method: string, path: string, body?: unknown, key?: string) => {
      const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600, ...(authTime === undefined ? {} : { authTime }) });
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      });
      return { status: response.status, type: response.headers.get("content-type") ?? "", replayed: response.headers.get("idempotent-replayed"), body: (await response.json()) as Record<string, any> };
    };
    const now = () => Math.floor(Date.now() / 1000);
    const { orderId, owner, totalMinor } = await deliveredOrder(t, as);
    const refund = `/operator/orders/${orderId}/refund`;

    t.match(await call(dispatcherId, now(), "POST", refund, { reason: "cold" }), { status: 400, body: { code: "idempotency_key_required" } });
    t.match(await call(randomUUID(), now(), "POST", refund, { reason: "cold" }, freshKey()), { status: 404 }, "not a dispatcher: 404");
    t.match(await call(elsewhereId, now(), "POST", refund, { reason: "cold" }, freshKey()), { status: 404 }, "a dispatcher of another region: 404");
    t.match(await call(dispatcherId, now(), "POST", `/operator/orders/${randomUUID()}/refund`, { reason: "cold" }, freshKey()), { status: 404 }, "an unknown order: 404");
    t.match(await call(dispatcherId, undefined, "POST", refund, { reason: "cold" }, freshKey()), { status: 403, body: { code: "step_up_required", max_age_seconds: Number } }, "step-up");
    for (const [body, why] of [
      [{}, "no reason"],
      [{ reason: " " }, "an empty reason"],
      [{ reason: "x".repeat(501) }, "a reason too long"],
      [{ reason: "x", amount_minor: 0 }, "a zero amount"],
      [{ reason: "x", amount_minor: -5 }, "a negative amount"],
      [{ reason: "x", amount_minor: 1.5 }, "a fraction"],
      [{ reason: "x", amount_minor: "12" }, "a string amount"],
      [{ reason: "x", amount_minor: 2 ** 60 }, "an amount past the safe range"],
      ["{not json", "an unreadable body"],
    ] as const) {
      const answer = await call(dispatcherId, now(), "POST", refund, body, freshKey());
      t.ok(answer.status === 400 || answer.status === 422, `${why}: 400 or 422 (${answer.status})`);
      t.match(answer.type, /application\/problem\+json/, `${why}: problem+json`);
    }
    t.match(
      await call(dispatcherId, now(), "POST", refund, { reason: "x", amount_minor: totalMinor + 1 }, freshKey()),
      { status: 409, type: /problem\+json/, body: { code: "refund_exceeds_captured", refundable_minor: totalMinor } },
      "more than was captured: 409",
    );

    const key = freshKey();
    const made = await call(dispatcherId, now(), "POST", refund, { reason: "the meal arrived cold" }, key);
    t.match(made, { status: 202, body: { order_id: orderId, amount_minor: totalMinor, actor_id: dispatcherId, reason: "the meal arrived cold" } });
    const replay = await call(dispatcherId, now(), "POST", refund, { reason: "the meal arrived cold" }, key);
    t.equal(replay.replayed, "true", "the same key replays the answer");
    t.equal(replay.body.id, made.body.id, "and makes no second refund");
    t.match(await call(dispatcherId, now(), "POST", refund, { reason: "again" }, freshKey()), { status: 409, body: { code: "refund_exceeds_captured", refundable_minor: 0 } });

    const refunds = await eventually(
      () => call(dispatcherId, undefined, "GET", `/operator/orders/${orderId}/refunds`),
      (a) => a.body.data?.[0]?.status === "refunded",
    );
    t.match(refunds, { status: 200, body: { data: [{ id: made.body.id, status: "refunded", failure: null }], next_cursor: null } }, "the payment refunded it");
    t.equal(refunds.body.data.length, 1, "one refund");
    t.match(await call(elsewhereId, undefined, "GET", `/operator/orders/${orderId}/refunds`), { status: 404 }, "another region's dispatcher: 404");
    t.match(await call(dispatcherId, undefined, "GET", `/operator/orders/${orderId}/refunds?cursor=nope`), { status: 400, body: { code: "invalid_cursor" } });
    const settlement = await owner.get(`/restaurant-orders/${orderId}/settlement`);
    const entries = settlement.body.data as Array<{ account: string; amount_minor: number }>;
    t.equal(entries.length, 8, "the settlement and its reversal");
    t.equal(entries.reduce((sum, e) => sum + e.amount_minor, 0), 0, "balanced");
    t.equal(entries.filter((e) => e.account.startsWith("restaurant:")).reduce((sum, e) => sum + e.amount_minor, 0), 0, "the restaurant is owed nothing for it");
  });
}



for (const dialect of dialects) {
  t.test(`a customer reads the refunds of their own order, without support's actor and reason; anyone else gets 404 [${dialect}]`, async (t) => {
    const dispatcherId = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcherId}=52.0:13.0:53.0:14.0` });
    const { orderId, customer } = await deliveredOrder(t, as);
    const token = await mintToken({ secret: hostSecret, userId: dispatcherId, ttlSeconds: 600, authTime: Math.floor(Date.now() / 1000) });
    const made = await fetch(`${base}/operator/orders/${orderId}/refund`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": freshKey() },
      body: JSON.stringify({ amount_minor: 100, reason: "internal note about the kitchen" }),
    });
    t.equal(made.status, 202);
    const mine = await eventually(
      () => customer.get(`/orders/${orderId}/refunds`),
      (a) => a.body.data?.[0]?.status === "refunded",
    );
    t.match(mine, { status: 200, body: { data: [{ order_id: orderId, amount_minor: 100, status: "refunded" }], next_cursor: null } });
    t.equal(mine.headers.get("cache-control"), "no-store");
    t.notOk(JSON.stringify(mine.body).includes("internal note"), "support's reason is not shown");
    t.notOk("actor_id" in mine.body.data[0], "nor who made it");
    t.match(await as().get(`/orders/${orderId}/refunds`), { status: 404 }, "another user: 404");
    t.match(await customer.get(`/orders/${randomUUID()}/refunds`), { status: 404 }, "an unknown order: 404");
    t.match(await customer.get(`/orders/${orderId}/refunds?cursor=nope`), { status: 400, body: { code: "invalid_cursor" } });
  });
}

/**
 * Money is answered with its currency (docs/conventions.md, HTTP), problems too: a refund refused
 * for its amount answers what can still be refunded (`refundable_minor`) in the order's currency
 * (GBP here; the fixture's default is EUR).
 */
for (const dialect of dialects) {
  t.test(`money is answered with its currency: refund_exceeds_captured names the order's currency beside refundable_minor [${dialect}]`, async (t) => {
    const dispatcherId = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcherId}=52.0:13.0:53.0:14.0` });
    const { orderId, totalMinor } = await deliveredOrder(t, as, "GBP");
    const token = await mintToken({ secret: hostSecret, userId: dispatcherId, ttlSeconds: 600, authTime: Math.floor(Date.now() / 1000) });
    const response = await fetch(`${base}/operator/orders/${orderId}/refund`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": freshKey() },
      body: JSON.stringify({ reason: "too much", amount_minor: totalMinor + 1 }),
    });
    t.match(
      { status: response.status, body: await response.json() },
      { status: 409, body: { code: "refund_exceeds_captured", refundable_minor: totalMinor, currency: "GBP" } },
      "the refundable amount with its currency",
    );
  });
}
