/**
 * Returns (spec, E-commerce: POST /v1/returns → 201 for eligible lines, 422 for lines not
 * eligible, 409 for an order state conflict; stages up to closed when the refund is confirmed).
 */
import { Effect } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { LocationId } from "../../core/commerce/model/Ids.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore, seedStoreWithTwoLocations } from "./support.js";

const codeOf = (r: { ok: boolean; error?: unknown }) => (r.ok ? "ok" : (r.error as { code: string }).code);

t.test("only shipped lines can be returned, at most what was shipped minus returned; the refund closes the return", (t) =>
  forEachCommerceDialect(t, "returns", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const lineId = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!.id;

    const notShipped = await c.attempt(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    t.equal(codeOf(notShipped), "order_not_dispatched", "a line not shipped is not returnable: the order has not shipped (409)");

    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: "T1" }));
    const stranger = await c.attempt(createReturn(customer(), { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "x" }));
    t.equal(codeOf(stranger), "not_found", "another customer's order is NotFound");
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    t.equal(ret.status, "authorized");
    t.equal(ret.refundMinor, 1100, "one unit with its tax");
    const tooMany = await c.attempt(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 2 }], reason: "more" }));
    t.equal(codeOf(tooMany), "return_not_eligible", "more than shipped minus returned is 422");

    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    const skipped = await c.attempt(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "skip inspection" }));
    t.equal(codeOf(skipped), "return_state_conflict", "stages are not skipped");
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "parcel arrived" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "inspected, as new" }));
    const level = await c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variant.id, location.id)));
    t.equal(level?.onHand, 4, "the restocked unit is back on hand");

    const support = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: support, role: "support" }));
    const closed = await c.run(requestReturnRefund({ kind: "staff", userId: support, role: "support" }, ret.id, { reason: "customer refund" }));
    t.equal(closed.status, "closed");
    const payment = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.order.paymentIntentRef! })));
    t.equal(payment.refundedMinor, 1100, "the refund went through the gateway once");
    const again = await c.run(requestReturnRefund({ kind: "staff", userId: support, role: "support" }, ret.id, { reason: "again" }).pipe(Effect.either));
    t.equal(again._tag, "Left", "a closed return is not refunded again");
  }),
);

t.test("a return of a cancelled order is 409", (t) =>
  forEachCommerceDialect(t, "return state conflict", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const lineId = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!.id;
    await c.run(cancelOrder(shopper, placed.order.id, { reason: "no" }));
    const refused = await c.attempt(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "x" }));
    t.equal(codeOf(refused), "order_state_conflict");
  }),
);

/**
 * Spec (E-commerce, Endpoints): "POST /v1/returns | Create a return authorization for eligible lines".
 * A line listed twice in one request is not eligible twice: the refund never exceeds the line's
 * total and restocking never adds back more than was shipped.
 */
t.test("a return authorizes eligible lines only: the same line listed twice is refused, never refunded twice", (t) =>
  forEachCommerceDialect(t, "duplicate return lines", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `D-${randomUUID()}` }));
    const doubled = await c.attempt(
      createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }, { orderLineId: line.id, quantity: 1 }], reason: "twice" }),
    );
    t.not(codeOf(doubled), "ok", "one unit listed twice is not authorized");
    t.same((await c.run(getOrder(shopper, placed.order.id))).lines.length, 1);
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason: "once" }));
    t.ok(ret.refundMinor <= line.totalMinor, "the refund never exceeds the line total");
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new" }));
    const level = await c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variant.id, location.id)));
    t.equal(level?.onHand, 5, "the one shipped unit is back on hand once");
  }),
);

t.test("the database bounds the quantity returned per order line to the line's quantity", (t) =>
  forEachCommerceDialect(t, "returned quantity bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    const claim = (quantity: number) => c.run(Effect.flatMap(OrdersRepository, (o) => o.claimReturnedQuantity(line.id, quantity)));
    t.equal(await claim(1), true);
    t.equal(await claim(2), false, "1 + 2 exceeds the line's 2");
    t.equal(await claim(1), true);
    t.equal(await claim(1), false, "the line is fully returned");
  }),
);

/**
 * Spec (E-commerce, Endpoints: "POST /v1/returns | Create a return authorization for eligible
 * lines | 201, 409, 422"). The order is captured when its last location ships; before that a
 * return's refund could never be paid, so a partly shipped order's return is 409.
 */
t.test("a return authorization needs an eligible order: a partly shipped (uncaptured) order's return is 409 order_not_dispatched", (t) =>
  forEachCommerceDialect(t, "return before full dispatch", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, second, variant } = await seedStoreWithTwoLocations(c, { stock: 1 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const lineId = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!.id;
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `H-${placed.order.id}` }));
    const early = await c.attempt(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    t.equal(codeOf(early), "order_not_dispatched", "no return before the order is captured");
    t.same(await c.run(Effect.flatMap(OrdersRepository, (o) => o.returnsOf(placed.order.id))), [], "nothing was written");
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: second.id, carrier: "DHL", trackingNumber: `H2-${placed.order.id}` }));
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    t.equal(ret.status, "authorized", "once dispatched (and captured) the line is returnable");
  }),
);

/**
 * Spec (E-commerce: "keeps prices, stock, money, fulfillment and returns correct"; line-level
 * returns; "Refund total is bounded by the captured amount"). A line of total 11 for 2 units
 * returned one unit at a time is refunded 6 then 5: together exactly what the line was paid.
 */
t.test("a line returned unit by unit is refunded exactly its total, never more than was paid for it", (t) =>
  forEachCommerceDialect(t, "cumulative line refunds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5, price: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    t.equal(line.totalMinor, 11, "2 × 5 with 10% tax");
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `R-${randomUUID()}` }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    const support = { kind: "staff" as const, userId: ownerId, role: "support" as const };
    const returnOne = async (reason: string) => {
      const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason }));
      await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
      await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "damaged" }));
      const refunded = await c.attempt(requestReturnRefund(support, ret.id, { reason: "customer refund" }));
      return { ret, refunded };
    };
    const first = await returnOne("first unit");
    const second = await returnOne("second unit");
    t.equal(first.ret.refundMinor + second.ret.refundMinor, 11, "the two refunds add up to the line's total, not 12");
    t.equal(first.refunded.ok && first.refunded.value.status, "closed", "the first refund is paid");
    t.equal(second.refunded.ok && second.refunded.value.status, "closed", "the second refund is paid too (within what was captured)");
    const payment = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.order.paymentIntentRef! })));
    t.equal(payment.refundedMinor, 11, "the customer is refunded exactly the line's total");
  }),
);

/**
 * Conventions (Errors: every bad input is a problem+json error; another tenant's object is 404).
 * Restocking at a location the store does not have is refused as NotFound, before anything is
 * written: not a 500 from the database's composite foreign key.
 */
t.test("restocking a return at another store's (or an unknown) location is 404 location, and nothing is restocked", (t) =>
  forEachCommerceDialect(t, "restock location", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const other = await seedStore(c, { stock: 1 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `L-${randomUUID()}` }));
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason: "wrong size" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
    const foreign = await c.attempt(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new", locationId: other.location.id }));
    t.equal(codeOf(foreign), "not_found", "another store's location is 404");
    const unknown = await c.attempt(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new", locationId: LocationId.make(randomUUID()) }));
    t.equal(codeOf(unknown), "not_found", "an unknown location is 404");
    const still = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id)));
    t.equal(still?.status, "received", "the return did not move");
    const level = await c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variant.id, location.id)));
    t.equal(level?.onHand, 4, "nothing was restocked");
    const restocked = await c.run(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new", locationId: location.id }));
    t.equal(restocked.status, "restocked", "the store's own location is accepted");
  }),
);

/**
 * Decision (E-commerce slice 1, Returns: "restocking adds the units back on hand at the location
 * they shipped from"). A line shipped from two locations cannot be put back at "the" location it
 * shipped from without being told which: 422 on location_id, never silently the first one.
 * Named, the units go back there; a line shipped from one location needs no name.
 */
t.test("restocking a line shipped from several locations needs location_id (422), and puts the units back there", (t) =>
  forEachCommerceDialect(t, "restock split line", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, second, variant } = await seedStoreWithTwoLocations(c, { stock: 1 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    for (const at of [location.id, second.id]) {
      await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: at, carrier: "DHL", trackingNumber: `S-${randomUUID()}` }));
    }
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason: "one too many" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
    const unnamed = await c.attempt(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new" }));
    t.equal(codeOf(unnamed), "validation_failed", "which location is not guessed");
    if (!unnamed.ok) t.same((unnamed.error as { errors: ReadonlyArray<{ path: string }> }).errors.map((e) => e.path), ["location_id"]);
    const onHand = async (at: string) => (await c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variant.id, at))))?.onHand;
    t.same([await onHand(location.id), await onHand(second.id)], [0, 0], "nothing was restocked");
    await c.run(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new", locationId: second.id }));
    t.same([await onHand(location.id), await onHand(second.id)], [0, 1], "the unit is back where the operator put it");
  }),
);

/**
 * Spec (Authentication 4: inventory adjustments are audited; "keeps ... stock ... correct"). A
 * restock is an adjustment: one that would take on-hand stock past what a location holds
 * (1,000,000,000 units) is 422 and the return stays received, never "restocked" with no units back.
 */
t.test("a restock beyond what a location holds is 422, not a return marked restocked with nothing put back", (t) =>
  forEachCommerceDialect(t, "restock bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 2 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `B-${randomUUID()}` }));
    const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason: "spare" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
    await c.run(adjustStock(ownerId, { variantId: variant.id, locationId: location.id, delta: 999_999_999, reason: "bulk delivery" }));
    const full = await c.attempt(advanceReturn(warehouse, ret.id, { to: "restocked", reason: "as new" }));
    t.equal(codeOf(full), "validation_failed", "the location cannot take the unit");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id))))?.status, "received", "the return is still received");
  }),
);
