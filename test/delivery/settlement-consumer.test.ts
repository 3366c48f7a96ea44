/**
 * Settlement consumers (spec: DeliveryCompleted → settlement with an event-id inbox; dead-letter
 * pages operations): the completion's event becomes one settlement job that records the
 * restaurant's and the courier's payables in their daily payout batches; a redelivered event, a
 * rescheduled job and a replay record nothing twice; a settlement job that keeps failing is
 * dead-lettered after its bounded attempts, listed on the dispatchers' page and replayed with a
 * reason and a recent sign-in — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { deliverTo, relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { listSettlementDeadLetters } from "../../core/delivery/ListSettlementDeadLetters.js";
import { replaySettlementDeadLetter } from "../../core/delivery/ReplaySettlementDeadLetter.js";
import { DeliveryCompleted } from "../../core/delivery/Events.js";
import { deliverySettlementConsumer, payoutBatchOf, scheduleSettlement, settlementMaxAttempts } from "../../core/delivery/SettlePayouts.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { Payables } from "../../ports/delivery/Payables.js";
import type { Principal } from "../../ports/Principal.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user, type DeliveryRuntime, advanceDelivery } from "./support.js";

const dispatcherId = "dispatcher-s";
const region = { minLat: 52, minLng: 13, maxLat: 53, maxLng: 14 };
const dispatcher = (authTime?: number): Principal => ({ kind: "user", userId: dispatcherId, ...(authTime === undefined ? {} : { authTime }) });
/** The first page of a list, as the routes read it by default. */
const firstPage = { limit: 50 };

/** Relays every pending event to the settlement consumer, recording what it saw. */
const relaySettlement = async (rt: DeliveryRuntime, seen: EventEnvelope[]) => {
  const recording = { ...deliverySettlementConsumer, handle: (event: EventEnvelope) => Effect.zipRight(Effect.sync(() => void seen.push(event)), deliverySettlementConsumer.handle(event)) };
  await rt.run(
    Effect.gen(function* () {
      for (let i = 0; i < 20; i++) if ((yield* relayOnce([recording], { workerId: "test-relay" })).claimed === 0) break;
    }),
  );
};

const runJobsAt = (rt: DeliveryRuntime, millis: number) => rt.run(at(millis)(runJobsOnce(deliveryJobs, { workerId: "settlement-test", concurrency: 1 })));
const payablesOf = (rt: DeliveryRuntime, orderId: string) => rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(orderId)));

t.test("DeliveryCompleted settles the restaurant and the courier once into their payout batches, however often it is delivered", (t) =>
  forEachDeliveryDialect(t, "settlement consumer", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-s");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-s", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const seen: EventEnvelope[] = [];
    await relaySettlement(rt, seen);
    const completed = seen.filter((e) => e.type === DeliveryCompleted.type);
    t.equal(completed.length, 1, "the consumer saw the completion once");
    await runJobsAt(rt, Date.now() + 60_000);

    const order = placed.order;
    const payables = await payablesOf(rt, order.id);
    t.same(
      payables.map((p) => [p.account.split(":")[0], p.amountMinor, p.currency]).sort(),
      [
        ["courier", order.deliveryFeeMinor, order.currency],
        ["restaurant", order.subtotalMinor + order.taxMinor, order.currency],
      ],
      "the restaurant is owed subtotal and tax, the courier the delivery fee",
    );
    for (const p of payables) t.equal(p.payoutBatch, payoutBatchOf(p.account, p.currency, p.createdAt), `${p.account} is in its daily payout batch`);

    // Redelivery through the relay: the inbox refuses the event id, nothing is scheduled.
    const again = await rt.run(deliverTo(deliverySettlementConsumer, completed[0]!));
    t.same(again, { ok: true });
    // Even bypassing the inbox, a second settlement job records nothing new.
    await rt.run(scheduleSettlement(completed[0]!));
    await runJobsAt(rt, Date.now() + 120_000);
    t.equal((await payablesOf(rt, order.id)).length, 2, "still two payables");
    t.same((await rt.run(listSettlementDeadLetters(user("nobody"), firstPage).pipe(Effect.either)))._tag, "Left", "the page is for dispatchers");
  }),
);

t.test("a settlement that keeps failing is dead-lettered after its bounded attempts, listed for dispatchers and replayed once with a reason and step-up", (t) =>
  forEachDeliveryDialect(t, "settlement dead letter", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, [{ userId: dispatcherId, region }]);
    const fixture = await openRestaurant(rt, "owner-dl");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-dl", fixture);
    // A completion event whose settlement is not posted (the delivery is only picked up): the job fails.
    const premature = await rt.run(
      DeliveryCompleted.make({
        tenant_id: fixture.restaurant.id,
        aggregate_id: accepted.delivery.id,
        aggregate_version: 9,
        actor_id: "test",
        data: { delivery_id: accepted.delivery.id, order_id: placed.order.id, courier_id: "x", version: 9, total_minor: 1, currency: "EUR" },
      }),
    );
    t.same(await rt.run(deliverTo(deliverySettlementConsumer, premature)), { ok: true }, "the consumer scheduled the job");
    let clock = Date.now() + 60_000;
    for (let attempt = 0; attempt < settlementMaxAttempts + 2; attempt++) {
      await runJobsAt(rt, clock);
      clock += 24 * 3600_000;
    }
    const page = await rt.run(listSettlementDeadLetters(dispatcher(), firstPage));
    t.equal(page.data.length, 1, "one dead settlement");
    const letter = page.data[0]!;
    t.match(letter, { orderId: placed.order.id, eventId: premature.id, status: "dead", attempts: settlementMaxAttempts, maxAttempts: settlementMaxAttempts });
    t.match(letter.lastError, /settlement_not_posted|SettlementNotPosted/);
    t.equal(page.next_cursor, null);

    // The delivery completes: now the settlement is posted (its own consumer run is a separate job).
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const nowSeconds = Math.floor(Date.now() / 1000);
    const stale = await rt.attempt(replaySettlementDeadLetter(dispatcher(nowSeconds - 3600), letter.id, { reason: "ledger fixed" }));
    t.match(stale, { ok: false, error: { code: "step_up_required" } }, "an old sign-in cannot replay");
    t.match(await rt.attempt(replaySettlementDeadLetter(dispatcher(nowSeconds), letter.id, { reason: " " })), { ok: false, error: { code: "validation_failed" } }, "a reason is required");
    t.match(await rt.attempt(replaySettlementDeadLetter(user("customer-dl"), letter.id, { reason: "x" })), { ok: false, error: { code: "not_found" } }, "a non-dispatcher: 404");
    t.match(await rt.attempt(replaySettlementDeadLetter(dispatcher(nowSeconds), "no-such-job", { reason: "x" })), { ok: false, error: { code: "not_found" } });
    const replayed = await rt.run(replaySettlementDeadLetter(dispatcher(nowSeconds), letter.id, { reason: "ledger fixed" }));
    t.match(replayed, { id: letter.id, status: "pending", attempts: 0 });
    t.match(await rt.attempt(replaySettlementDeadLetter(dispatcher(nowSeconds), letter.id, { reason: "again" })), { ok: false, error: { code: "not_a_dead_settlement" } }, "a replayed letter is not dead");
    // What the service does: "Every manual reassignment, refund and state override records actor
    // and reason"; Authentication 2: sensitive actions audited. A replay is kept in the database
    // (append-only), not only in a log line; refused replays leave nothing.
    const audit = await db.db.selectFrom("dl_settlement_replays").select(["job_id", "order_id", "actor_id", "reason"]).execute();
    t.same(
      audit.map((row) => [String(row.job_id), String(row.order_id), String(row.actor_id), String(row.reason)]),
      [[letter.id, placed.order.id, dispatcherId, "ledger fixed"]],
      "one audit row: the job, its order, actor and reason",
    );
    await t.rejects(db.db.updateTable("dl_settlement_replays").set({ reason: "changed" }).execute(), "the audit refuses UPDATE");
    await t.rejects(db.db.deleteFrom("dl_settlement_replays").execute(), "and DELETE");
    await runJobsAt(rt, clock);
    t.equal((await payablesOf(rt, placed.order.id)).length, 2, "the replay recorded both payables");
    t.same((await rt.run(listSettlementDeadLetters(dispatcher(), firstPage))).data, [], "nothing dead any more");
  }),
);
