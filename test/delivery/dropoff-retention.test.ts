/**
 * What the service does: "Precise courier and customer locations are retained briefly and exposed
 * only during an active delivery." The location retention pass also coarsens the customer's
 * drop-off point (3 decimals) and masks the address on the quote, the order snapshot and the
 * delivery once the delivery — or a quote or order that never became one — has been finished
 * longer than DELIVERY_LOCATION_RETENTION_SECONDS; an active delivery keeps them. The database
 * allows exactly that redaction of the otherwise immutable rows — SQLite and Postgres.
 */
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { acceptOrder, rejectOrder } from "../../core/delivery/AcceptOrder.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { locationRetentionJob } from "../../core/delivery/LocationRetention.js";
import { redactedDropoffAddress } from "../../core/delivery/model/PriceSnapshot.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { myActiveJob } from "../../core/delivery/Tracking.js";
import { at } from "../worker/fixtures.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, quoteFor, user, type DeliveryRuntime } from "./support.js";

const precise = { lat: 52.5291234, lng: 13.4056789, address: "Torstraße 12, 3rd floor left, ring Meyer" };
const coarse = { dropoffLat: 52.529, dropoffLng: 13.406, dropoffAddress: redactedDropoffAddress };
const kept = { dropoffLat: precise.lat, dropoffLng: precise.lng, dropoffAddress: precise.address };

/** An order to `precise` whose delivery a fresh courier won and picked up. */
const pickedUpTo = async (rt: DeliveryRuntime, customer: string, fixture: Awaited<ReturnType<typeof openRestaurant>>) => {
  const [courier] = await onlineCouriers(rt, 1, `for-${customer}`);
  const quote = await quoteFor(rt, customer, fixture, precise);
  const placed = await rt.run(placeOrder(user(customer), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
  const accepted = await rt.run(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 15 }));
  const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === accepted.delivery.id);
  if (offer === undefined) throw new Error("the courier got no offer");
  await rt.run(acceptOffer(courier!.principal, offer.id));
  await advanceDelivery(rt, courier!.principal, accepted.delivery.id, { transitionId: "p", status: "picked_up" });
  return { quote, order: placed.order, deliveryId: accepted.delivery.id, courier: courier! };
};

t.test("customers' drop-off points and addresses are retained briefly: coarsened and masked once finished longer than the retention, kept while active", (t) =>
  forEachDeliveryDialect(t, "dropoff retention", async (t, db) => {
    const rt = deliveryRuntime(t, db, { locationRetentionSeconds: 3600 });
    const fixture = await openRestaurant(rt, "owner-retention");
    const active = await pickedUpTo(rt, "cust-active", fixture);
    const done = await pickedUpTo(rt, "cust-done", fixture);
    await advanceDelivery(rt, done.courier.principal, done.deliveryId, { transitionId: "d", status: "delivered" });
    const rejectedQuote = await quoteFor(rt, "cust-rejected", fixture, precise);
    const rejected = await rt.run(placeOrder(user("cust-rejected"), { quoteId: rejectedQuote.id, paymentMethod: "pm_card_visa" }));
    await rt.run(rejectOrder(user(fixture.owner), rejected.order.id, { reason: "out of dough" }));
    const unplaced = await quoteFor(rt, "cust-quote", fixture, precise);

    const dropoffs = async (table: "dl_quotes" | "dl_orders" | "dl_deliveries", id: string) => {
      const row = await db.db.selectFrom(table).select(["dropoff_lat", "dropoff_lng", "dropoff_address"]).where("id", "=", id).executeTakeFirstOrThrow();
      return { dropoffLat: Number(row.dropoff_lat), dropoffLng: Number(row.dropoff_lng), dropoffAddress: row.dropoff_address };
    };
    const finished: ReadonlyArray<readonly [string, "dl_quotes" | "dl_orders" | "dl_deliveries", string]> = [
      ["the delivered order's quote", "dl_quotes", done.quote.id],
      ["the delivered order", "dl_orders", done.order.id],
      ["the delivery", "dl_deliveries", done.deliveryId],
      ["the rejected order's quote", "dl_quotes", rejectedQuote.id],
      ["the rejected order", "dl_orders", rejected.order.id],
      ["the quote never placed", "dl_quotes", unplaced.id],
    ];
    const running: typeof finished = [
      ["the active order's quote", "dl_quotes", active.quote.id],
      ["the active order", "dl_orders", active.order.id],
      ["the active delivery", "dl_deliveries", active.deliveryId],
    ];

    const start = Date.now();
    await rt.run(locationRetentionJob.schedule({ pass: 1 }, { runAt: new Date(start), key: "pass-1" }));
    await rt.run(at(start + 10_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    for (const [what, table, id] of [...finished, ...running]) t.same(await dropoffs(table, id), kept, `${what}: kept within the retention`);

    await rt.run(at(start + 3_600_000 + 600_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    for (const [what, table, id] of finished) t.same(await dropoffs(table, id), coarse, `${what}: coarsened and masked after it`);
    for (const [what, table, id] of running) t.same(await dropoffs(table, id), kept, `${what}: kept while the delivery is active`);

    // What a read shows afterwards: the order as stored, its point to 3 decimals, the address masked.
    t.match((await rt.run(getOrder(user("cust-done"), done.order.id))).order, coarse, "the customer's order read shows the redacted drop-off");
    t.match((await rt.run(getOrder(user("cust-active"), active.order.id))).order, kept);
    t.match(await rt.run(myActiveJob(active.courier.principal, active.deliveryId)), { dropoff: { lat: precise.lat, lng: precise.lng, address: precise.address } }, "the active courier still sees the address");

    // The database allows exactly that redaction of the otherwise immutable rows.
    await t.rejects(db.db.updateTable("dl_orders").set({ dropoff_address: "Elsewhere 1" }).where("id", "=", active.order.id).execute(), "an order's address is not rewritten");
    await t.rejects(db.db.updateTable("dl_quotes").set({ dropoff_address: redactedDropoffAddress }).where("id", "=", active.quote.id).execute(), "masking without coarsening is refused");
    await t.rejects(db.db.updateTable("dl_orders").set({ dropoff_lat: 52.5, dropoff_lng: 13.4, dropoff_address: redactedDropoffAddress }).where("id", "=", active.order.id).execute(), "a point moved further than 3 decimals is refused");
    await t.rejects(db.db.updateTable("dl_orders").set({ total_minor: 1 }).where("id", "=", done.order.id).execute(), "a redacted order stays immutable otherwise");
    await t.rejects(db.db.updateTable("dl_deliveries").set({ dropoff_lat: 52.529, dropoff_lng: 13.406, dropoff_address: redactedDropoffAddress }).where("id", "=", active.deliveryId).execute(), "an active delivery's drop-off is not redacted");
    await t.rejects(db.db.updateTable("dl_deliveries").set({ dropoff_address: "Elsewhere 1" }).where("id", "=", done.deliveryId).execute(), "a delivery's address is not rewritten");
    await t.rejects(db.db.deleteFrom("dl_orders").where("id", "=", done.order.id).execute(), "orders are still never deleted");
  }),
);
