/**
 * An authorization whose order was never written, end to end on the reference server with the
 * real in-process payment module (SQLite and Postgres): the order's transaction fails after the
 * provider authorized (an INSERT of the order refused by a trigger), so POST /orders answers 500
 * and writes no order, while the payment holds the amount. The placement's release job (the
 * test runs the due jobs with the clock moved on; the server's own worker is off) leaves it alone
 * while the quote is valid and voids it once the quote has expired; the quote then answers 409.
 */
import { Duration, Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { placementReleaseGrace } from "../../core/delivery/PlacementRelease.js";
import { dialects } from "../support/databases.js";
import { refuseChanges } from "../support/refuseUpdates.js";
import { at } from "../worker/fixtures.js";
import { freshKey, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`an authorization whose order was never written is voided once its quote has expired, through the real payment module [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect, { WORKER_IN_PROCESS: "false" });
    const db = server.core.database;
    const handlers = server.core.modules.flatMap((m) => m.jobHandlers ?? []);
    const runJobsAt = (millis: number) =>
      server.core.runtime.runPromise(
        Effect.gen(function* () {
          for (let pass = 0; pass < 5; pass++) if ((yield* at(millis)(runJobsOnce(handlers, { workerId: "orphan-test", concurrency: 1 }))).claimed === 0) break;
        }),
      );
    const intents = async () => (await db.db.selectFrom("payment_intents").select(["status", "amount_capturable_minor"]).execute()).map((r) => [String(r.status), Number(r.amount_capturable_minor)]);
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const quote = await customer.post("/orders/quote", quoteBody(r));
    const expiresAt = Date.parse(String(quote.body.expires_at));

    const restore = await refuseChanges(db, "dl_orders", "INSERT");
    const failed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    await restore();
    t.equal(failed.status, 500, "the order's transaction failed after the authorization");
    t.equal((await db.db.selectFrom("dl_orders").selectAll().execute()).length, 0, "no order");
    const [held] = await intents();
    t.equal(held?.[0], "requires_capture", "the payment module holds the amount");

    await runJobsAt(expiresAt - 1_000);
    t.equal((await intents())[0]?.[0], "requires_capture", "kept while the quote is valid");

    await runJobsAt(expiresAt + Duration.toMillis(placementReleaseGrace) + 1_000);
    t.same(await intents(), [["canceled", 0]], "voided once the quote has expired: nothing is held");
    const late = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    t.match(late, { status: 409, body: { code: "quote_expired" } }, "the released quote places nothing");
  });
}
