/**
 * Spec, Resources: ledger entries are immutable and balance; corrections are linked reversals
 * (docs/decisions.md, Food delivery (slice 1)). A participant is never owed a component whose
 * settlement was reversed: the settlement job that runs after a reversal (delayed by retries, or
 * replayed from the dead letters) records no payable for a reversed component. Before, it
 * recorded the restaurant's and the courier's payables of a reversed settlement. A reversal after
 * the payables were recorded writes a reversing payable for each (negated, in the participant's
 * payout batch of the reversal's day, naming the payable it reverses), so what an order owes its
 * participants sums to zero; before, the payables stayed owed (delivery migration 14).
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { reverseSettlement } from "../../core/delivery/ReverseSettlement.js";
import { deliverySettlementConsumer, recordOrderPayables } from "../../core/delivery/SettlePayouts.js";
import { Transactions } from "../../ports/Transactions.js";
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
    // The database refuses a reversing payable of a payable never recorded (its reversal entry is posted).
    const reversal = entries.find((e) => e.component === "restaurant_payable" && e.reverses !== null)!;
    await t.rejects(
      db.db
        .insertInto("dl_payables")
        .values({
          id: "pyb-forged",
          order_id: placed.order.id,
          delivery_id: accepted.delivery.id,
          component_key: reversal.componentKey,
          account: reversal.account,
          amount_minor: reversal.amountMinor,
          currency: reversal.currency,
          payout_batch: "forged",
          created_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date(),
          reverses: reversal.reverses,
        })
        .execute(),
      "a reversing payable negates a recorded payable",
    );
  }),
);

const settleAndRunJobs = async (rt: ReturnType<typeof deliveryRuntime>) => {
  await rt.run(
    Effect.gen(function* () {
      for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliverySettlementConsumer], { workerId: "test-relay" })).claimed === 0) break;
    }),
  );
  await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "reversal-test", concurrency: 1 })));
};

t.test("a reversal after the payables were recorded reverses each of them: what the order owes its participants sums to zero", (t) =>
  forEachDeliveryDialect(t, "reversed payables", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-r");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-r", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    await settleAndRunJobs(rt);
    const owed = await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(placed.order.id)));
    t.equal(owed.length, 2, "the restaurant's and the courier's payables");
    await rt.run(reverseSettlement({ actorId: "support-1", orderId: placed.order.id, reason: "the customer never received the meal" }));
    const after = await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(placed.order.id)));
    t.equal(after.length, 4, "each payable and its reversal");
    for (const payable of owed) {
      const reversal = after.find((p) => p.reverses === payable.componentKey);
      t.match(reversal, { account: payable.account, amountMinor: -payable.amountMinor, currency: payable.currency, componentKey: `${payable.componentKey}:reversal` }, `${payable.account} is reversed`);
    }
    const byAccount = new Map<string, number>();
    for (const p of after) byAccount.set(p.account, (byAccount.get(p.account) ?? 0) + p.amountMinor);
    t.same([...byAccount.values()], [0, 0], "nothing is owed to anyone");
    // The settlement job running again (a replay) records nothing more.
    await settleAndRunJobs(rt);
    t.equal((await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(placed.order.id)))).length, 4, "a replay records nothing");
  }),
);

t.test("a reversal racing the settlement job leaves nothing owed, whichever commits first (parallel connections on Postgres)", (t) =>
  forEachDeliveryDialect(t, "reversal against the settlement job", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 20 });
    const fixture = await openRestaurant(rt, "owner-r");
    const orders = [];
    for (let i = 0; i < 6; i++) {
      const { placed, accepted, courier } = await pickedUpOrder(rt, `customer-${i}`, fixture);
      await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
      orders.push(placed.order.id);
    }
    const settlementJob = (orderId: string) => Effect.flatMap(Transactions, (tx) => tx.run(recordOrderPayables(orderId)));
    const answers = await Promise.all(
      orders.flatMap((orderId) => [rt.attempt(settlementJob(orderId)), rt.attempt(reverseSettlement({ actorId: "support-1", orderId, reason: "refunded" }))]),
    );
    t.ok(answers.every((a) => a.ok), "every job and every reversal succeeded");
    for (const orderId of orders) {
      const payables = await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(orderId)));
      t.equal(payables.reduce((sum, p) => sum + p.amountMinor, 0), 0, `order ${orderId}: nothing owed (${payables.length} payables)`);
    }
  }),
);
