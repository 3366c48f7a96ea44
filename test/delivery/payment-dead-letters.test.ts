/**
 * Spec, Background work: "payment void or capture reconciliation"; Events: "dead-letter pages
 * operations". A capture the provider keeps refusing ends dead-lettered after its bounded retries;
 * the order stays capture_pending while its participants are owed. Dispatchers now see such jobs
 * on GET /operator/payment-dead-letters (the step, the order, attempts, the last error); anyone
 * else gets 403. Before, only settlement dead letters were listed and these were seen by nobody.
 * A dispatcher replays one with a reason and a recent sign-in (step-up); the replay is audited in
 * dl_payment_replays, and the payment is captured once.
 */
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { listPaymentDeadLetters, paymentDeadLetterOf } from "../../core/delivery/PaymentDeadLetters.js";
import { replayPaymentDeadLetter } from "../../core/delivery/ReplayPaymentDeadLetter.js";
import { listSettlementDeadLetters } from "../../core/delivery/ListSettlementDeadLetters.js";
import type { Principal } from "../../ports/Principal.js";
import { at } from "../worker/fixtures.js";
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret } from "../hosts/support.js";
import { dialects } from "../support/databases.js";
import { startDeliveryServer } from "./http-support.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user } from "./support.js";

const dispatcherId = "dispatcher-p";
const region = { minLat: 52, minLng: 13, maxLat: 53, maxLng: 14 };
const dispatcher: Principal = { kind: "user", userId: dispatcherId };

t.test("a capture that keeps failing is dead-lettered and listed for dispatchers with its order; anyone else gets 403", (t) =>
  forEachDeliveryDialect(t, "payment dead letters", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, [{ userId: dispatcherId, region }]);
    const fixture = await openRestaurant(rt, "owner-p");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-p", fixture);
    rt.gateway.failNext("capture", 1000);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    let clock = Date.now() + 60_000;
    for (let attempt = 0; attempt < 20; attempt++) {
      await rt.run(at(clock)(runJobsOnce(deliveryJobs, { workerId: "payment-dl", concurrency: 4 })));
      clock += 24 * 3600_000;
    }
    const workflow = await db.db.selectFrom("dl_restaurant_orders").select("payment_state").where("order_id", "=", placed.order.id).executeTakeFirstOrThrow();
    t.equal(workflow.payment_state, "capture_pending", "the capture never happened");
    const page = await rt.run(listPaymentDeadLetters(dispatcher, { limit: 50 }));
    t.match(page, { data: [{ step: "capture", orderId: placed.order.id, status: "dead", lastError: String }], next_cursor: null }, "the dead capture is listed with its order");
    t.equal(page.data.length, 1, "one dead payment step");
    t.same((await rt.run(listSettlementDeadLetters(dispatcher, { limit: 50 }))).data, [], "it is not a settlement dead letter");
    t.match(await rt.attempt(listPaymentDeadLetters(user("someone"), { limit: 50 })), { ok: false, error: { code: "forbidden" } }, "not a dispatcher: 403");

    // The provider is back; a dispatcher replays the capture with a reason and a recent sign-in.
    rt.gateway.recover("capture");
    const letter = page.data[0]!;
    const recent: Principal = { kind: "user", userId: dispatcherId, authTime: Math.floor(Date.now() / 1000) };
    t.match(await rt.attempt(replayPaymentDeadLetter(dispatcher, letter.id, { reason: "provider fixed" })), { ok: false, error: { code: "step_up_required" } }, "step-up");
    t.match(await rt.attempt(replayPaymentDeadLetter(recent, letter.id, { reason: " " })), { ok: false, error: { code: "validation_failed" } }, "a reason");
    t.match(await rt.attempt(replayPaymentDeadLetter(user("someone"), letter.id, { reason: "x" })), { ok: false, error: { code: "not_found" } }, "not a dispatcher: 404");
    t.match(await rt.attempt(replayPaymentDeadLetter(recent, "no-such-job", { reason: "x" })), { ok: false, error: { code: "not_found" } }, "an unknown job");
    t.match(await rt.run(replayPaymentDeadLetter(recent, letter.id, { reason: "provider fixed" })), { id: letter.id, step: "capture", status: "pending", attempts: 0 });
    t.match(await rt.attempt(replayPaymentDeadLetter(recent, letter.id, { reason: "again" })), { ok: false, error: { code: "not_a_dead_payment_step" } }, "a replayed step is not dead");
    const audit = await db.db.selectFrom("dl_payment_replays").selectAll().execute();
    t.match(audit, [{ job_id: letter.id, step: "capture", order_id: placed.order.id, quote_id: null, actor_id: dispatcherId, reason: "provider fixed" }], "the replay is audited");
    await rt.run(at(clock)(runJobsOnce(deliveryJobs, { workerId: "payment-dl", concurrency: 4 })));
    const captured = await db.db.selectFrom("dl_restaurant_orders").select("payment_state").where("order_id", "=", placed.order.id).executeTakeFirstOrThrow();
    t.equal(captured.payment_state, "captured", "captured after the replay");
    t.equal(rt.gateway.effects.capture, 1, "captured once");
  }),
);

for (const dialect of dialects) {
  t.test(`GET /operator/payment-dead-letters is a dispatchers' keyset page [${dialect}]`, async (t) => {
    const id = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${id}=52.0:13.0:53.0:14.0` });
    const get = async (path: string) => {
      const token = await mintToken({ secret: hostSecret, userId: id, ttlSeconds: 600 });
      const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    t.match(await as().get("/operator/payment-dead-letters"), { status: 403 }, "not for customers");
    t.match(await get("/operator/payment-dead-letters"), { status: 200, body: { data: [], next_cursor: null } });
    t.match(await get("/operator/payment-dead-letters?cursor=nope"), { status: 400, body: { code: "invalid_cursor" } });
    const token = await mintToken({ secret: hostSecret, userId: id, ttlSeconds: 600, authTime: Math.floor(Date.now() / 1000) });
    const replay = (key?: string) =>
      fetch(`${base}/operator/payment-dead-letters/no-such-job/replay`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
        body: JSON.stringify({ reason: "fixed" }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    t.match(await replay(), { status: 400, body: { code: "idempotency_key_required" } });
    t.match(await replay(randomUUID()), { status: 404 }, "an unknown dead letter");
  });
}

t.test("each payment step's job reads as its step with its order or quote", async (t) => {
  const job = (kind: string, payload: unknown) => ({
    id: `job-${kind}`,
    kind,
    key: null,
    payload,
    status: "dead" as const,
    attempts: 16,
    maxAttempts: 16,
    runAt: new Date(0),
    lastError: "provider down",
  });
  t.match(paymentDeadLetterOf(job("delivery.payment_capture", { orderId: "o1" }) as never), { step: "capture", orderId: "o1", quoteId: null });
  t.match(paymentDeadLetterOf(job("delivery.payment_void", { orderId: "o2" }) as never), { step: "void", orderId: "o2", quoteId: null });
  t.match(paymentDeadLetterOf(job("delivery.payment_resolve", { orderId: "o3" }) as never), { step: "resolve", orderId: "o3", quoteId: null });
  t.match(paymentDeadLetterOf(job("delivery.placement_release", { quoteId: "q1" }) as never), { step: "release", orderId: null, quoteId: "q1" });
});
