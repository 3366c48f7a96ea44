/**
 * Spec, What the service does: "Every manual reassignment, refund and state override records
 * actor and reason"; Authentication 2: dispatcher or support, region-scoped, sensitive actions
 * audited; Authentication 6: "Support overrides require a reason and step-up authentication".
 * Support refunds a delivered order (core/delivery/RefundOrder.ts): a dispatcher of the order's
 * region, signed in recently, with a reason; the refund is recorded with actor and reason, the
 * payment is refunded once after commit by a keyed job with a durable outcome, a refund of the
 * whole amount reverses the settlement and the participants' payables, a partial one is borne by
 * the platform, and the refunds of an order never exceed its captured amount (also in the
 * database, raced on parallel Postgres connections). Before, support had no refund path at all.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { listOrderRefunds } from "../../core/delivery/ListOrderRefunds.js";
import { listPaymentDeadLetters } from "../../core/delivery/PaymentDeadLetters.js";
import { refundOrder } from "../../core/delivery/RefundOrder.js";
import { replayPaymentDeadLetter } from "../../core/delivery/ReplayPaymentDeadLetter.js";
import { deliverySettlementConsumer } from "../../core/delivery/SettlePayouts.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import type { Principal } from "../../ports/Principal.js";
import { at } from "../worker/fixtures.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user, type DeliveryRuntime } from "./support.js";

const dispatcherId = "dispatcher-refunds";
const region = { minLat: 52, minLng: 13, maxLat: 53, maxLng: 14 };
const elsewhereId = "dispatcher-elsewhere";
const elsewhere = { minLat: 40, minLng: 2, maxLat: 41, maxLng: 3 };
const dispatchers = [
  { userId: dispatcherId, region },
  { userId: elsewhereId, region: elsewhere },
];
/** A dispatcher who signed in just now (step-up). */
const recent = (userId = dispatcherId): Principal => ({ kind: "user", userId, authTime: Math.floor(Date.now() / 1000) });

/** A delivered order whose payment is captured, its settlement job run (the participants' payables recorded). */
const deliveredOrder = async (rt: DeliveryRuntime, customer: string, fixture: Awaited<ReturnType<typeof openRestaurant>>) => {
  const { placed, accepted, courier } = await pickedUpOrder(rt, customer, fixture);
  await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
  await rt.run(
    Effect.gen(function* () {
      for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliverySettlementConsumer], { workerId: "refund-relay" })).claimed === 0) break;
    }),
  );
  await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "refund-test", concurrency: 1 })));
  return { order: placed.order, deliveryId: accepted.delivery.id, courier };
};

const netByAccount = async (rt: DeliveryRuntime, orderId: string) => {
  const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(orderId)));
  const net = new Map<string, number>();
  for (const e of entries) net.set(e.account.split(":")[0]!, (net.get(e.account.split(":")[0]!) ?? 0) + e.amountMinor);
  return { net: Object.fromEntries(net), total: entries.reduce((sum, e) => sum + e.amountMinor, 0) };
};

const owed = async (rt: DeliveryRuntime, orderId: string) => (await rt.run(Effect.flatMap(Payables, (p) => p.ofOrder(orderId)))).reduce((sum, p) => sum + p.amountMinor, 0);

const refundEvents = async (db: { db: any }) =>
  (await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "OrderRefunded").execute()) as Array<{ type: string; event: unknown }>;

t.test("support refunds a delivered order with actor and reason: the whole amount is refunded once and reverses the settlement and the participants' payables", (t) =>
  forEachDeliveryDialect(t, "whole refund", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-rf");
    const { order } = await deliveredOrder(rt, "customer-rf", fixture);
    t.ok((await owed(rt, order.id)) > 0, "the participants are owed before the refund");

    const refund = await rt.run(refundOrder(recent(), order.id, { reason: "  the meal arrived cold " }));
    t.match(refund, { orderId: order.id, amountMinor: order.totalMinor, currency: order.currency, status: "refunded", actorId: dispatcherId, reason: "the meal arrived cold", failure: null });
    t.equal(rt.gateway.effects.refund, 1, "the payment was refunded once");
    t.match(rt.gateway.payments().find((p) => p.refundedMinor > 0), { refundedMinor: order.totalMinor });

    const ledger = await netByAccount(rt, order.id);
    t.same(ledger.net, { customer: 0, restaurant: 0, courier: 0, platform: 0 }, "the settlement is reversed for every participant");
    t.equal(await owed(rt, order.id), 0, "the restaurant's and the courier's payables are reversed");
    const events = await refundEvents(db);
    t.equal(events.length, 1, "one OrderRefunded on the outbox");

    // The keyed job runs later (its fallback) and finds the refund settled: nothing is refunded twice.
    await rt.run(at(Date.now() + 3_600_000)(runJobsOnce(deliveryJobs, { workerId: "refund-test", concurrency: 1 })));
    t.equal(rt.gateway.effects.refund, 1, "the job refunds nothing again");
    const jobs = await db.db.selectFrom("jobs").select(["status"]).where("kind", "=", "delivery.refund").execute();
    t.match(jobs, [{ status: "done" }], "the refund's job is done");

    t.match(await rt.attempt(refundOrder(recent(), order.id, { reason: "again" })), { ok: false, error: { code: "refund_exceeds_captured", refundableMinor: 0 } }, "nothing is left to refund");
    const page = await rt.run(listOrderRefunds(recent(), order.id, { limit: 50 }));
    t.match(page, { data: [{ id: refund.id, status: "refunded", actorId: dispatcherId }], next_cursor: null }, "the order's refunds, with actor and reason");
    t.match(await rt.attempt(listOrderRefunds(user("someone"), order.id, { limit: 50 })), { ok: false, error: { code: "not_found" } }, "anyone else: 404");
  }),
);

t.test("a partial refund is borne by the platform, and the refunds of an order never exceed its captured amount", (t) =>
  forEachDeliveryDialect(t, "partial refunds", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-rp");
    const { order } = await deliveredOrder(rt, "customer-rp", fixture);
    const owedBefore = await owed(rt, order.id);

    const first = await rt.run(refundOrder(recent(), order.id, { amountMinor: 500, reason: "a missing drink" }));
    t.match(first, { amountMinor: 500, status: "refunded" });
    const ledger = await netByAccount(rt, order.id);
    t.equal(ledger.total, 0, "the ledger balances");
    t.equal(ledger.net.customer, order.totalMinor - 500, "the customer's charge goes down by the refund");
    t.equal(ledger.net.platform, -order.serviceFeeMinor + 500, "the platform bears it");
    t.equal(await owed(rt, order.id), owedBefore, "the restaurant and the courier are still owed their share");

    t.match(
      await rt.attempt(refundOrder(recent(), order.id, { amountMinor: order.totalMinor - 500 + 1, reason: "too much" })),
      { ok: false, error: { code: "refund_exceeds_captured", refundableMinor: order.totalMinor - 500 } },
      "above what is left of the captured amount: 409",
    );
    const rest = await rt.run(refundOrder(recent(), order.id, { reason: "the rest" }));
    t.match(rest, { amountMinor: order.totalMinor - 500, status: "refunded" }, "without an amount: what is left");
    t.equal(rt.gateway.effects.refund, 2, "two refunds sent, one each");
    t.match(await refundEvents(db), [{ type: "OrderRefunded" }, { type: "OrderRefunded" }]);

    // The database holds the bound, whoever writes.
    const row = (amount: number, status = "pending") => ({
      id: `forged-${amount}-${status}`,
      order_id: order.id,
      amount_minor: amount,
      currency: order.currency,
      status,
      actor_id: "someone",
      reason: "forged",
      failure: null,
      created_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date(),
      settled_at: null,
    });
    await t.rejects(db.db.insertInto("dl_refunds").values(row(1)).execute(), "a refund above the captured amount is refused by the database");
    await t.rejects(db.db.updateTable("dl_refunds").set({ amount_minor: 1 }).where("id", "=", first.id).execute(), "a refund's amount never changes");
    await t.rejects(db.db.updateTable("dl_refunds").set({ status: "failed", failure: "x" }).where("id", "=", first.id).execute(), "a settled refund never moves again");
    await t.rejects(db.db.deleteFrom("dl_refunds").where("id", "=", first.id).execute(), "a refund is never deleted");
  }),
);

t.test("who may refund: a dispatcher of the order's region (else 404), signed in recently (else 403), with a reason (else 422), a delivered and captured order (else 409)", (t) =>
  forEachDeliveryDialect(t, "refund guards", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-rg");
    const { order } = await deliveredOrder(rt, "customer-rg", fixture);
    const refused = async (principal: Principal, orderId: string, input: { amountMinor?: number; reason: string }) => rt.attempt(refundOrder(principal, orderId, input));
    t.match(await refused(user("customer-rg"), order.id, { reason: "x" }), { ok: false, error: { code: "not_found" } }, "the customer: 404");
    t.match(await refused(recent(elsewhereId), order.id, { reason: "x" }), { ok: false, error: { code: "not_found" } }, "a dispatcher of another region: 404");
    t.match(await refused(recent(), "no-such-order", { reason: "x" }), { ok: false, error: { code: "not_found" } }, "an unknown order: 404");
    t.match(await refused(user(dispatcherId), order.id, { reason: "x" }), { ok: false, error: { code: "step_up_required" } }, "no recent sign-in: 403");
    t.match(await refused({ kind: "user", userId: dispatcherId, authTime: Math.floor(Date.now() / 1000) - 3600 }, order.id, { reason: "x" }), { ok: false, error: { code: "step_up_required" } });
    t.match(await refused(recent(), order.id, { reason: "   " }), { ok: false, error: { code: "validation_failed" } }, "a reason is required");
    t.match(await refused(recent(), order.id, { reason: "x".repeat(501) }), { ok: false, error: { code: "validation_failed" } }, "at most 500 characters");
    t.match(await refused(recent(), order.id, { amountMinor: 0, reason: "x" }), { ok: false, error: { code: "validation_failed" } }, "a positive amount");
    t.match(await refused(recent(), order.id, { amountMinor: 2 ** 60, reason: "x" }), { ok: false, error: { code: "validation_failed" } }, "a safe integer");
    const { placed } = await pickedUpOrder(rt, "customer-rg2", fixture);
    t.match(await refused(recent(), placed.order.id, { reason: "x" }), { ok: false, error: { code: "order_not_refundable", status: "accepted" } }, "an order not delivered yet: 409");
    t.equal(rt.gateway.effects.refund, 0, "nothing was refunded");
    t.equal((await db.db.selectFrom("dl_refunds").select("id").execute()).length, 0, "nothing was recorded");
  }),
);

t.test("a refund's outcome is durable: a refusal is recorded failed and no longer counts, and while the provider is down the keyed job retries, then the payment desk replays it", (t) =>
  forEachDeliveryDialect(t, "refund outcomes", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-ro");
    const { order } = await deliveredOrder(rt, "customer-ro", fixture);

    rt.gateway.settleRefundsAs("failed");
    const failed = await rt.run(refundOrder(recent(), order.id, { reason: "refused by the bank" }));
    t.match(failed, { status: "failed", failure: "refund_failed", settledAt: Date });
    t.equal((await netByAccount(rt, order.id)).net.customer, order.totalMinor, "a failed refund changes no settlement");
    t.equal((await refundEvents(db)).length, 0, "and announces nothing");

    // The provider is down: the refund stays pending, and the job retries until it is dead.
    rt.gateway.settleRefundsAs("succeeded");
    rt.gateway.failNext("refund", 1000);
    const pending = await rt.run(refundOrder(recent(), order.id, { reason: "try again" }));
    t.match(pending, { status: "pending", amountMinor: order.totalMinor }, "a failed refund no longer counts against the captured amount");
    let clock = Date.now() + 60_000;
    for (let attempt = 0; attempt < 20; attempt++) {
      await rt.run(at(clock)(runJobsOnce(deliveryJobs, { workerId: "refund-dl", concurrency: 4 })));
      clock += 24 * 3600_000;
    }
    const page = await rt.run(listPaymentDeadLetters(recent(), { limit: 50 }));
    t.match(page.data, [{ step: "refund", orderId: order.id, status: "dead" }], "the dead refund is on the payment desk with its order");

    rt.gateway.recover("refund");
    await rt.run(replayPaymentDeadLetter(recent(), page.data[0]!.id, { reason: "provider back" }));
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "refund-dl", concurrency: 1 })));
    const refunds = await rt.run(listOrderRefunds(recent(), order.id, { limit: 50 }));
    t.match(refunds.data, [{ id: failed.id, status: "failed" }, { id: pending.id, status: "refunded" }], "the replayed refund is refunded");
    t.equal(rt.gateway.effects.refund, 2, "each refund reached the provider once");
    t.same((await netByAccount(rt, order.id)).net, { customer: 0, restaurant: 0, courier: 0, platform: 0 }, "and the settlement is reversed");
    t.match(await db.db.selectFrom("dl_payment_replays").select(["step", "order_id"]).execute(), [{ step: "refund", order_id: order.id }], "the replay is audited");

    // A refund the provider answers pending waits for its outcome; the job asks again under its key.
    const fixture2 = await openRestaurant(rt, "owner-ro2");
    const second = await deliveredOrder(rt, "customer-ro2", fixture2);
    rt.gateway.settleRefundsAs("pending");
    t.match(await rt.run(refundOrder(recent(), second.order.id, { amountMinor: 100, reason: "late" })), { status: "pending" });
    rt.gateway.settleRefundsAs("succeeded");
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "refund-dl", concurrency: 1 })));
    t.match((await rt.run(listOrderRefunds(recent(), second.order.id, { limit: 50 }))).data, [{ status: "refunded", amountMinor: 100 }], "settled once the provider answered");
  }),
);

t.test("two refunds of the whole amount raced on parallel connections: exactly one is recorded and refunded", (t) =>
  forEachDeliveryDialect(t, "refund race", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-rr");
    const { order } = await deliveredOrder(rt, "customer-rr", fixture);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => rt.attempt(refundOrder(recent(), order.id, { reason: `race ${i}` }))));
    t.equal(answers.filter((a) => a.ok).length, 1, "one refund wins");
    for (const a of answers) if (!a.ok) t.match(a.error, { code: "refund_exceeds_captured" }, "the others learn nothing is left");
    t.equal(rt.gateway.effects.refund, 1, "the payment is refunded once");

    // The database alone (writes around the core, each in its own transaction): one full refund passes.
    const { order: other } = await deliveredOrder(rt, "customer-rr2", fixture);
    const insert = (i: number) =>
      db.db
        .transaction()
        .execute((trx: any) =>
          trx
            .insertInto("dl_refunds")
            .values({
              id: `raw-${i}`,
              order_id: other.id,
              amount_minor: other.totalMinor,
              currency: other.currency,
              status: "pending",
              actor_id: "someone",
              reason: "raw race",
              failure: null,
              created_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date(),
              settled_at: null,
            })
            .execute(),
        )
        .then(
          () => true,
          () => false,
        );
    const raw = await Promise.all(Array.from({ length: 8 }, (_, i) => insert(i)));
    t.equal(raw.filter(Boolean).length, 1, "exactly one raw insert of the whole amount commits");
  }),
);
