/**
 * Spec, Background work: "payment void or capture reconciliation"; Events: "dead-letter pages
 * operations". A capture the provider keeps refusing ends dead-lettered after its bounded retries;
 * the order stays capture_pending while its participants are owed. Dispatchers now see such jobs
 * on GET /operator/payment-dead-letters (the step, the order, attempts, the last error); anyone
 * else gets 403. Before, only settlement dead letters were listed and these were seen by nobody.
 */
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { listPaymentDeadLetters, paymentDeadLetterOf } from "../../core/delivery/PaymentDeadLetters.js";
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
