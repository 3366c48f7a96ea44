/**
 * `202 payment_pending` resolved over HTTP on the reference server with the real in-process
 * payment module (SQLite and Postgres): an order paid with `pm_card_timeout_after` (the provider
 * acts, its answer is lost) answers 202; until the lookup knows, `GET /orders/:id` says
 * `payment_pending` and the restaurant cannot accept (never guessed). Once the payment module's
 * reconciliation has asked the provider (its job runs 30 s later: the test runs the due jobs with
 * the clock moved on, the server's own worker is off), the delivery's lookup job finds the
 * authorization: the order shows `authorized` and the restaurant accepts it.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { dialects } from "../support/databases.js";
import { at } from "../worker/fixtures.js";
import { freshKey, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a payment_pending order is resolved by the lookup job, never guessed [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect, { WORKER_IN_PROCESS: "false" });
    const handlers = server.core.modules.flatMap((m) => m.jobHandlers ?? []);
    /** Runs every job due at `millis` (a few passes, so retries due by then run too). */
    const runJobsAt = (millis: number) =>
      server.core.runtime.runPromise(
        Effect.gen(function* () {
          for (let pass = 0; pass < 5; pass++) if ((yield* at(millis)(runJobsOnce(handlers, { workerId: "pending-test", concurrency: 1 }))).claimed === 0) break;
        }),
      );
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const quote = await customer.post("/orders/quote", quoteBody(r));
    const placed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_timeout_after" }, freshKey());
    t.match(placed, { status: 202, body: { status: "payment_pending", payment_state: "pending" } }, "an unknown provider answer is 202 payment_pending");
    const orderId = String(placed.body.id);

    // The lookup runs at once: the payment module does not know yet (processing), so it retries.
    await runJobsAt(Date.now() + 1_000);
    t.match(await customer.get(`/orders/${orderId}`), { status: 200, body: { status: "payment_pending", payment_state: "pending" } }, "still pending: nothing guessed");
    t.match(await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 10 }), { status: 409 }, "a pending order cannot be accepted");

    // Past the payment module's reconciliation delay, then past the lookup's next retry (both
    // well before the acceptance deadline, 300 s).
    await runJobsAt(Date.now() + 60_000);
    await runJobsAt(Date.now() + 120_000);
    t.match(await customer.get(`/orders/${orderId}`), { status: 200, body: { status: "authorized", payment_state: "authorized" } }, "the lookup found the authorization");
    const accepted = await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 10 });
    t.match(accepted, { status: 200, body: { order_id: orderId, status: "accepted" } }, "the restaurant accepts the resolved order");
    t.match(await customer.get(`/orders/${orderId}`), { body: { status: "accepted", delivery: { id: accepted.body.delivery_id, status: "pending" } } });
  });
}
