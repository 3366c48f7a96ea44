/**
 * Spec, States: "a retry with the same transition id creates no second settlement", raced with
 * real parallel connections on Postgres (serialized on SQLite): a courier's app retrying its
 * completion at once, and other completions under other transition ids, settle the order once,
 * write one DeliveryCompleted and capture the payment once.
 */
import t from "tap";
import { Effect } from "effect";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder } from "./support.js";

t.test("completions raced under one transition id and under others settle once, complete once and capture once", (t) =>
  forEachDeliveryDialect(t, "completion race", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const { placed, accepted, courier } = await pickedUpOrder(rt, "cust-1", fixture);
    const deliveryId = accepted.delivery.id;
    const complete = (transitionId: string) => rt.attempt(updateDeliveryStatus(courier.principal, deliveryId, { transitionId, status: "delivered", expectedVersion: 3 }));
    const answers = await Promise.all([...Array.from({ length: 8 }, () => complete("done")), ...Array.from({ length: 4 }, (_, i) => complete(`other-${i}`))]);
    const succeeded = answers.flatMap((a) => (a.ok ? [a.value] : []));
    t.ok(succeeded.length >= 1, "a completion succeeded");
    t.equal(new Set(succeeded.map((c) => `${c.transitionId}:${c.version}`)).size, 1, "every success answers the one change that was made");
    for (const a of answers) if (!a.ok) t.match(a.error, { code: "delivery_version_conflict" }, "the others learn the delivery moved on");
    const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(placed.order.id)));
    t.equal(entries.length, 4, "one settlement");
    t.equal(entries.reduce((sum, e) => sum + e.amountMinor, 0), 0, "balanced");
    const completed = await db.db.selectFrom("outbox").select("id").where("type", "=", "DeliveryCompleted").execute();
    t.equal(completed.length, 1, "one DeliveryCompleted");
    t.equal(rt.gateway.effects.capture, 1, "captured once");
    const history = await db.db.selectFrom("dl_delivery_status_changes").select("to_status").where("delivery_id", "=", deliveryId).where("to_status", "=", "delivered").execute();
    t.equal(history.length, 1, "one completion in the history");
  }),
);
