/**
 * Issue rule 3 as a property: after any sequence of completions, repeated completions (same
 * transition id) and provider faults on capture, across currencies, every order is settled at
 * most once and the settlement ledger sums to zero per currency; every order's components add
 * up to its customer charge (restaurant share + courier fee + platform fee).
 */
import t from "tap";
import fc from "fast-check";
import { Effect } from "effect";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers, setCourierOnline } from "../../core/delivery/Couriers.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { settlementTransaction } from "../../core/delivery/Settlement.js";
import { validateTransaction } from "../../core/kernel/Ledger.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { OrderId } from "../../core/delivery/model/Order.js";
import { QuoteId } from "../../core/delivery/model/Quote.js";
import { RestaurantId } from "../../core/delivery/model/Restaurant.js";
import { forEachDeliveryDialect } from "./support.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant } from "./support.js";

t.test("the settlement of any order is a balanced kernel ledger transaction (pure property)", async (t) => {
  fc.assert(
    fc.property(
      fc.record({
        subtotal: fc.integer({ min: 0, max: 10_000_000 }),
        tax: fc.integer({ min: 0, max: 1_000_000 }),
        delivery: fc.integer({ min: 1, max: 100_000 }),
        service: fc.integer({ min: 0, max: 100_000 }),
      }),
      (p) => {
        const total = p.subtotal + p.tax + p.delivery + p.service;
        const tx = settlementTransaction(
          {
            id: OrderId.make("o"),
            customerId: "c",
            restaurantId: RestaurantId.make("r"),
            quoteId: QuoteId.make("q"),
            menuVersion: 1,
            merchantId: "m",
            dropoffLat: 0,
            dropoffLng: 0,
            dropoffAddress: "a",
            subtotalMinor: p.subtotal,
            deliveryFeeMinor: p.delivery,
            serviceFeeMinor: p.service,
            taxMinor: p.tax,
            totalMinor: total,
            currency: "EUR",
            scheduledFor: null,
            placedAt: new Date(0),
          },
          "k",
        );
        Effect.runSync(validateTransaction(tx));
        return tx.entries.reduce((s, e) => s + e.amount_minor, 0) === 0;
      },
    ),
  );
  t.pass("balanced for every generated order");
});

const stepArbitrary = fc.array(
  fc.record({ kind: fc.constantFrom("complete", "retry", "fault"), order: fc.integer({ min: 0, max: 3 }) }),
  { minLength: 6, maxLength: 14 },
);

t.test("completions, retries and capture faults in any order: each order settles once and the ledger sums to zero per currency", (t) =>
  forEachDeliveryDialect(t, "settlement property", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(stepArbitrary, async (steps) => {
        run += 1;
        const eur = await openRestaurant(rt, `owner-eur-${run}`, "EUR");
        const usd = await openRestaurant(rt, `owner-usd-${run}`, "USD");
        const orders = [];
        for (let i = 0; i < 4; i++) {
          const [courier] = await onlineCouriers(rt, 1, `r${run}o${i}`);
          const { placed, accepted } = await acceptedOrder(rt, `cust-${i}`, i % 2 === 0 ? eur : usd);
          const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === accepted.delivery.id)!;
          await rt.run(acceptOffer(courier!.principal, offer.id));
          await rt.run(updateDeliveryStatus(courier!.principal, accepted.delivery.id, { transitionId: `p-${i}`, status: "picked_up", expectedVersion: 2 }));
          orders.push({ placed, delivery: accepted.delivery, courier: courier! });
        }
        for (const step of steps) {
          const o = orders[step.order]!;
          if (step.kind === "fault") rt.gateway.failNext("capture");
          // "complete" and "retry" both send the order's one completion transition id; a fault precedes it.
          await rt.attempt(updateDeliveryStatus(o.courier.principal, o.delivery.id, { transitionId: `d-${step.order}`, status: "delivered", expectedVersion: 3 }));
        }
        // This run's couriers leave, so the next run offers its deliveries to its own couriers.
        for (const o of orders) await rt.run(setCourierOnline(o.courier.principal, false));
        const totals = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.totalsByCurrency));
        if (!totals.every((row) => row.totalMinor === 0)) return false;
        for (const [i, o] of orders.entries()) {
          const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(o.placed.order.id)));
          const completed = steps.some((s) => s.order === i);
          if (entries.length !== (completed ? 4 : 0)) return false;
          if (completed && entries.find((e) => e.component === "customer_charge")?.amountMinor !== o.placed.order.totalMinor) return false;
        }
        return true;
      }),
      { numRuns: 3, seed: 4711 },
    );
    const totals = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.totalsByCurrency));
    t.same(totals.map((row) => row.currency), ["EUR", "USD"], "both currencies were settled");
    for (const { currency, totalMinor } of totals) t.equal(totalMinor, 0, `${currency} sums to zero`);
  }),
);
