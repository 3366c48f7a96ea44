/**
 * Spec, Resources: ledger entries are immutable and balance; corrections are linked reversals
 * (docs/decisions.md, Food delivery (slice 1)). A participant is never owed a component whose
 * settlement was reversed: the settlement job that runs after a reversal (delayed by retries, or
 * replayed from the dead letters) records no payable for a reversed component. Before, it
 * recorded the restaurant's and the courier's payables of a reversed settlement.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { reverseSettlement } from "../../core/delivery/ReverseSettlement.js";
import { deliverySettlementConsumer } from "../../core/delivery/SettlePayouts.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { at } from "../worker/fixtures.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder } from "./support.js";

t.test("a reversed settlement component is never owed: the settlement job that runs after the reversal records no payable for it", (t) =>
  forEachDeliveryDialect(t, "reversed settlement payables", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-r");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-r", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    // The completion's event schedules the settlement job; support reverses the settlement before it runs.
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliverySettlementConsumer], { workerId: "test-relay" })).claimed === 0) break;
      }),
    );
    await rt.run(reverseSettlement({ actorId: "support-1", orderId: placed.order.id, reason: "the customer never received the meal" }));
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "reversal-test", concurrency: 1 })));
    const settlementJobs = await db.db.selectFrom("jobs").select(["kind", "status"]).where("kind", "=", "delivery.settlement").execute();
    t.match(settlementJobs, [{ status: "done" }], "the settlement job ran and finished");
    t.same(await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(placed.order.id))), [], "no payable for a reversed component");
    const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(placed.order.id)));
    t.equal(entries.reduce((sum, e) => sum + e.amountMinor, 0), 0, "the ledger still balances");
  }),
);
