/**
 * Races decided by the database (spec, E-commerce: the loser of a stock race receives 409; a
 * conditional status change prevents releasing twice; order creation is idempotent). Postgres
 * runs them on real parallel connections; SQLite serializes writers and must agree. The stock
 * race (twenty checkouts for the last five units) is run over HTTP, in
 * http-guests-and-races.test.ts.
 */
import { Effect } from "effect";
import t from "tap";
import { sql } from "kysely";
import { expireOrderReservations } from "../../core/commerce/ReservationExpiry.js";
import { authorizeOrderPayment, resolveOrderPayment } from "../../core/commerce/OrderPayments.js";
import { commerceJobs } from "../../core/commerce/Jobs.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { PaymentOutcomeAmbiguous } from "../../ports/PaymentGateway.js";
import { placeOrder, type PlacedOrder } from "../../core/commerce/PlaceOrder.js";
import { setCartLine } from "../../core/commerce/Carts.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import type { CartId } from "../../core/commerce/model/Ids.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { randomUUID } from "node:crypto";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, confirmedOrder, customer, pendingPaymentOrder, seedStore, seedStoreWithTwoLocations, unrecordedAuthorizationOrder, type CommerceRuntime } from "./support.js";
import { timelineEntries } from "./timeline.js";

const count = async (db: { db: { selectFrom: (t: string) => any } }, table: string): Promise<number> =>
  Number((await db.db.selectFrom(table).select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow()).n);

const stockOf = (c: CommerceRuntime, variantId: string, locationId: string) =>
  c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variantId, locationId)));

const sixteenMinutes = 16 * 60 * 1000;

t.test("ten parallel identical checkouts make one order and one authorization", (t) =>
  forEachCommerceDialect(t, "parallel retries", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const input = checkoutInput(cart.id);
    const results = await Promise.all(Array.from({ length: 10 }, () => c.attempt(placeOrder(shopper, input))));
    t.ok(results.every((r) => r.ok), "every request answers the order");
    const ids = new Set(results.map((r) => (r.ok ? r.value.order.id : "")));
    t.equal(ids.size, 1, "one order id for all");
    t.equal(await count(db, "shop_orders"), 1, "one order");
    t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, 1, "one authorization");
  }),
);

t.test("an expired reservation is released exactly once, however many expiry runs race", (t) =>
  forEachCommerceDialect(t, "expiry once", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    // A lost provider answer keeps the order in checkout with its reservation active.
    const placed = await pendingPaymentOrder(c, store.id, variant.id, 2);
    t.equal(placed.order.status, "payment_pending");
    const notYet = await c.run(expireOrderReservations(placed.order.id));
    t.equal(notYet, 0, "nothing expires before expires_at");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 2);

    const released = await Promise.all(Array.from({ length: 4 }, () => c.later(sixteenMinutes, expireOrderReservations(placed.order.id))));
    t.equal(released.reduce((a, b) => a + b, 0), 1, "one run released the one reservation");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "its stock was given back once");
    const events = (await db.db.selectFrom("outbox").select("type").execute()).filter((e: { type: string }) => e.type === "ReservationExpired");
    t.equal(events.length, 1, "one ReservationExpired");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id))))?.status, "expired");
  }),
);

t.test("expiry racing the payment's confirmation ends in one consistent outcome: confirmed with stock held, or expired with stock and authorization released", (t) =>
  forEachCommerceDialect(t, "expiry vs confirmation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const placed = await pendingPaymentOrder(c, store.id, variant.id, 2);
    await c.payments.run(reconcileIntent(placed.paymentId!));
    await Promise.all([
      c.later(sixteenMinutes, expireOrderReservations(placed.order.id)),
      c.attempt(resolveOrderPayment(placed.order.id)),
    ]);
    const order = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id)));
    const reservations = await c.run(Effect.flatMap(InventoryRepository, (i) => i.reservationsOfOrder(placed.order.id)));
    const level = await stockOf(c, variant.id, location.id);
    const gatewayPayment = await c.run(
      Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.paymentId! })),
    );
    if (order?.status === "confirmed") {
      t.same(reservations.map((r) => r.status), ["committed"]);
      t.equal(level?.reserved, 2);
      t.equal(gatewayPayment.status, "requires_capture");
    } else {
      t.equal(order?.status, "expired");
      t.same(reservations.map((r) => r.status), ["released"]);
      t.equal(level?.reserved, 0);
      t.equal(gatewayPayment.status, "canceled", "an authorization for an expired order is voided");
    }
  }),
);

t.test("an authorization answered again for an order another path already confirmed stands: it is not voided", (t) =>
  forEachCommerceDialect(t, "late answer after confirmation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    t.equal(placed.order.status, "confirmed");
    const payment = (await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.order.id))))!;
    // The same authorization answered a second time (a late answer racing the resolution job),
    // applied to the order as checkout wrote it (pending).
    const pending = { ...placed.order, status: "pending" as const };
    const answered = await c.run(authorizeOrderPayment({ order: pending, payment: { ...payment, status: "authorizing" } }, "test"));
    t.equal(answered.status, "confirmed");
    const gatewayPayment = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.order.paymentIntentRef! })));
    t.equal(gatewayPayment.status, "requires_capture", "the confirmed order's authorization stands");
    const record = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.order.id)));
    t.equal(record?.status, "authorized");
    const later = await c.host(60_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    t.ok(later.claimed >= 1, "the release job ran");
    t.equal(
      (await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.order.paymentIntentRef! })))).status,
      "requires_capture",
      "and left it standing too",
    );
  }),
);

t.test("an authorization for an order that expired meanwhile is voided by a durable job when the provider refuses the void at first", (t) =>
  forEachCommerceDialect(t, "stranded authorization", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const placed = await pendingPaymentOrder(c, store.id, variant.id, 1);
    await c.payments.run(reconcileIntent(placed.paymentId!));
    await c.later(sixteenMinutes, expireOrderReservations(placed.order.id));
    const gateway = await c.run(PaymentGateway);
    const refusing = PaymentGateway.of({ ...gateway, cancel: () => Effect.fail(new PaymentOutcomeAmbiguous({ operation: "cancel", paymentId: placed.paymentId })) });
    await c.run(Effect.provideService(resolveOrderPayment(placed.order.id), PaymentGateway, refusing));
    const statusAtProvider = () =>
      c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: placed.paymentId! }))).then((p) => p.status);
    t.equal(await statusAtProvider(), "requires_capture", "the void did not get through");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id))))?.status, "expired");
    await c.host(sixteenMinutes + 60_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    t.equal(await statusAtProvider(), "canceled", "the job voided the expired order's authorization");
    const orders = await c.run(OrdersRepository);
    t.equal((await c.run(orders.findPayment(placed.order.id)))?.status, "voided");
    t.ok((await c.run(timelineEntries(placed.order.id))).some((e) => e.kind === "payment.voided"), "on the order's timeline");
  }),
);

t.test("an authorization whose answer was never recorded (the process stopped after the provider answered) is resolved by the job checkout scheduled", (t) =>
  forEachCommerceDialect(t, "unrecorded authorization", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const gateway = await c.run(PaymentGateway);
    // The provider authorizes, then the process stops before the answer is recorded.
    const stopping = PaymentGateway.of({ ...gateway, authorize: (request) => Effect.zipRight(gateway.authorize(request), Effect.die(new Error("process stopped"))) });
    const stopped = await c.attempt(Effect.provideService(placeOrder(shopper, checkoutInput(cart.id)), PaymentGateway, stopping)).catch((error: unknown) => error);
    t.ok(stopped instanceof Error, "checkout stopped after the provider answered");
    const orders = await c.run(OrdersRepository);
    const [order] = await db.db.selectFrom("shop_orders").select("id").execute();
    const orderId = (order as { id: string }).id;
    t.equal((await c.run(orders.findOrder(orderId)))?.status, "pending", "the order waits, its answer unrecorded");
    await c.host(31_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    const resolved = await c.run(orders.findOrder(orderId));
    t.equal(resolved?.status, "confirmed", "the resolution job found the authorization and confirmed the order");
    t.equal((await c.run(orders.findPayment(orderId)))?.status, "authorized");
  }),
);


/**
 * Spec (E-commerce, States: "POST /v1/orders/:id/cancel | order not yet dispatched | cancellation
 * requested (202)"). Checkout recording its authorization's answer and the cancellation of the
 * still-pending order, at once: the order is either confirmed and then cancelled with its
 * authorization voided, or cancelled without ever being confirmed, its authorization voided too
 * (no hold left) — never confirmed once its cancellation was requested.
 */
t.test("order not yet dispatched → cancellation requested (202): cancelling a pending order while checkout records its answer ends cancelled, voided, stock released", (t) =>
  forEachCommerceDialect(t, "cancel vs outcome", async (t, db) => {
    const c = commerceRuntime(t, db);
    const pending = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { store, location, variant } = await seedStore(c, { stock: 2 });
        return { store, location, variant, ...(await unrecordedAuthorizationOrder(c, store.id, variant.id, 1)) };
      }),
    );
    // Each cancellation starts a little later than the one before, so some land before the
    // answer's transaction and some after it (or while it runs).
    const cancels = await Promise.all(
      pending.map(async ({ shopper, order, payment }, i) => {
        const [, cancel] = await Promise.all([
          c.attempt(authorizeOrderPayment({ order, payment }, "test")),
          new Promise((resolve) => setTimeout(resolve, i * 12)).then(() => c.attempt(cancelOrder(shopper, order.id, { reason: "changed my mind" }))),
        ]);
        return cancel;
      }),
    );
    t.same(
      cancels.map((r) => (r.ok ? "accepted" : (r.error as { code?: string }).code)),
      cancels.map(() => "accepted"),
      "every cancellation is accepted (202)",
    );
    // Whatever the inline attempts left (a void refused while another was running) the jobs finish.
    await c.host(31_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    await c.host(10 * 60_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    const orders = await c.run(OrdersRepository);
    let confirmedFirst = 0;
    for (const { store, location, variant, order } of pending) {
      t.equal((await c.run(orders.findOrder(order.id)))?.status, "cancelled");
      const kinds = (await c.run(timelineEntries(order.id))).map((e) => e.kind);
      if (kinds.includes("order.confirmed")) confirmedFirst += 1;
      const requestedAt = kinds.indexOf("order.cancellation_requested");
      t.ok(requestedAt > 0, "the cancellation was requested");
      t.notOk(kinds.slice(requestedAt).includes("order.confirmed"), "never confirmed after its cancellation was requested");
      t.equal(kinds.filter((k) => k === "order.cancelled").length, 1, "cancelled once");
      const payment = await c.run(orders.findPayment(order.id));
      t.equal(payment?.status, "voided");
      const atProvider = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: payment!.paymentId! })));
      t.equal(atProvider.status, "canceled", "no authorization is left held");
      t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "the stock is released");
    }
    t.comment(`confirmed before the cancellation: ${confirmedFirst} of ${pending.length}`);
  }),
);

/**
 * Spec (E-commerce, Versioning): "Order state changes use version or conditional status updates".
 * The shipments of one order's locations dispatched at once each lock the order and read what is
 * left to ship after the other: the last of them moves the order to dispatched and captures it.
 */
t.test("order state changes are conditional: two locations of one order dispatched at once end the order dispatched and captured", (t) =>
  forEachCommerceDialect(t, "parallel dispatches", async (t, db) => {
    const c = commerceRuntime(t, db);
    const orders = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { ownerId, store, location, second, variant } = await seedStoreWithTwoLocations(c, { stock: 1 });
        const { placed } = await confirmedOrder(c, store.id, variant.id, 2);
        return { ownerId, store, locations: [location.id, second.id], order: placed.order };
      }),
    );
    const results = await Promise.all(
      orders.flatMap(({ ownerId, locations, order }) =>
        locations.map((locationId) => c.attempt(dispatchShipment(ownerId, order.id, { locationId, carrier: "DHL", trackingNumber: `R-${locationId}` }))),
      ),
    );
    t.ok(results.every((r) => r.ok), "every location's dispatch succeeds");
    for (const { store, order } of orders) {
      const stored = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(order.id)));
      t.equal(stored?.status, "dispatched", "the order is dispatched once its last location has shipped");
      const payment = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: order.paymentIntentRef! })));
      t.equal(payment.capturedMinor, order.totalMinor, "its total is captured");
    }
  }),
);

/**
 * Spec (E-commerce: "shipment tracking and refunds" are must-haves; the order's payment state is
 * reconciled with the provider). Return refunds of one order confirmed at once each add their
 * amount to the order's refunded total: neither is lost.
 */
t.test("return refunds of one order confirmed at once add up: refunded_minor is the sum of both", (t) =>
  forEachCommerceDialect(t, "parallel return refunds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 20 });
    const support = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: support, role: "support" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    const staff = { kind: "staff" as const, userId: support, role: "support" as const };
    const orders = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 2);
        await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `RR-${placed.order.id}` }));
        const lineId = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!.id;
        const returns = [];
        for (let i = 0; i < 2; i++) {
          const ret = await c.run(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: `unit ${i}` }));
          await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
          await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "damaged" }));
          returns.push(ret);
        }
        return { order: placed.order, returns };
      }),
    );
    const closed = await Promise.all(orders.flatMap(({ returns }) => returns.map((ret) => c.attempt(requestReturnRefund(staff, ret.id, { reason: "refund" })))));
    t.ok(closed.every((r) => r.ok && r.value.status === "closed"), "every return is refunded and closed");
    for (const { order, returns } of orders) {
      const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(order.id)));
      t.equal(payment?.refundedMinor, returns.reduce((sum, r) => sum + r.refundMinor, 0), "the order's refunded total is the sum of its return refunds");
    }
  }),
);

/** The cart's lines as the database holds them. */
const cartLinesOf = (c: CommerceRuntime, cartId: CartId) => c.run(Effect.flatMap(CartsRepository, (r) => r.linesOf(cartId)));

/**
 * Spec (E-commerce: "A cart is server-authoritative"; "POST /v1/carts/:id/lines ... 200, 409").
 * A checkout that takes the cart between the line request's read of the cart and its write wins:
 * the line request answers 409 cart_checked_out and the checked-out cart keeps exactly what was ordered.
 */
t.test("a cart line set while checkout takes the cart is 409 cart_checked_out, never written into the checked-out cart", (t) =>
  forEachCommerceDialect(t, "cart line vs checkout", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const carts = await c.run(CartsRepository);
    let placed: Awaited<ReturnType<typeof c.attempt<PlacedOrder, unknown>>> | null = null;
    // The real checkout commits right after the line request has read the (still open) cart.
    const checkoutAfterRead = CartsRepository.of({
      ...carts,
      findCart: (id) =>
        Effect.tap(carts.findCart(id), () =>
          placed === null ? Effect.promise(async () => void (placed = await c.attempt(placeOrder(shopper, checkoutInput(cart.id))))) : Effect.void,
        ),
    });
    const set = await c.attempt(Effect.provideService(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 3 }), CartsRepository, checkoutAfterRead));
    t.ok(placed !== null && (placed as { ok: boolean }).ok, "the checkout went through");
    t.equal(set.ok ? "ok" : (set.error as { code: string }).code, "cart_checked_out", "the line request loses with 409");
    t.same((await cartLinesOf(c, cart.id)).map((l) => l.quantity), [1], "the checked-out cart holds what was ordered");
  }),
);

/**
 * The same on real parallel connections (Postgres): a checkout's transaction holds the cart while a
 * line request arrives; once it commits, the line request answers 409 and writes nothing. SQLite
 * serializes writers: a line request after the checkout is 409 too.
 */
t.test("a cart line request racing a checkout's open transaction (parallel connections) answers 409 and writes nothing", (t) =>
  forEachCommerceDialect(t, "cart line vs checkout transaction", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    let set: Awaited<ReturnType<typeof c.attempt<unknown, unknown>>>;
    if (db.dialect === "postgres") {
      set = await db.db.transaction().execute(async (tx) => {
        // What checkout's transaction does first: the cart moves to checked_out (not committed yet).
        await tx.updateTable("shop_carts").set({ status: "checked_out" }).where("id", "=", cart.id).execute();
        let settled = false;
        const request = c.attempt(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 3 }));
        void request.then(() => (settled = true));
        // Commit only once the line request waits on the cart's row (it has read the cart as open),
        // or has answered without waiting (then the assertions below judge what it did).
        while (!settled) {
          const waiting = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db.db);
          if (waiting.rows[0]!.n > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        return { request };
      }).then(({ request }) => request);
    } else {
      await c.run(placeOrder(shopper, checkoutInput(cart.id)));
      set = await c.attempt(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 3 }));
    }
    t.equal(set.ok ? "ok" : (set.error as { code: string }).code, "cart_checked_out", "the line request answers 409");
    t.same((await cartLinesOf(c, cart.id)).map((l) => l.quantity), [1], "the checked-out cart's line is unchanged");
  }),
);

/**
 * Spec (E-commerce: "An order can split ... into line-level returns"; POST /v1/returns → 201 for
 * eligible lines, 422 otherwise). Returns of one line requested at once (parallel connections on
 * Postgres) never return more units than shipped: of ten one-unit returns of a two-unit line,
 * exactly two are authorized, the others are 422 return_not_eligible, and the two refunds add up
 * to the line's total.
 */
t.test("parallel returns of one line never return more units than shipped: exactly as many as shipped are authorized", (t) =>
  forEachCommerceDialect(t, "parallel returns", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 2);
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `PRT-${placed.order.id}` }));
    const line = (await c.run(getOrder(shopper, placed.order.id))).lines[0]!;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => c.attempt(createReturn(shopper, { orderId: placed.order.id, lines: [{ orderLineId: line.id, quantity: 1 }], reason: `unit ${i}` }))),
    );
    const authorized = results.flatMap((r) => (r.ok ? [r.value] : []));
    t.equal(authorized.length, 2, "two returns, one per shipped unit");
    t.ok(results.every((r) => r.ok || (r.error as { code: string }).code === "return_not_eligible"), "the others are 422 return_not_eligible");
    t.equal(authorized.reduce((sum, r) => sum + r.refundMinor, 0), line.totalMinor, "their refunds add up to the line's total");
    t.equal(await count(db, "shop_returns"), 2);
  }),
);

/**
 * Spec (E-commerce States: "order | POST /v1/orders/:id/cancel | order not yet dispatched |
 * cancellation requested (202)" and "order dispatched | unchanged | 409"). A cancellation and a
 * dispatch of the same order at once (parallel connections on Postgres) are decided by the order's
 * lock: either the order ships (captured, the cancel 409 order_dispatched) or it is cancelled
 * (voided, stock back, the dispatch 409), never a shipment of a cancelled order.
 */
t.test("a cancellation racing a dispatch ends one way: shipped and captured, or cancelled and voided, never both", (t) =>
  forEachCommerceDialect(t, "cancel vs dispatch", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 20 });
    const orders = await Promise.all(Array.from({ length: 6 }, () => confirmedOrder(c, store.id, variant.id, 1)));
    const outcomes = await Promise.all(
      orders.map(async ({ shopper, placed }) => {
        const [cancelled, shipped] = await Promise.all([
          c.attempt(cancelOrder(shopper, placed.order.id, { reason: "changed my mind" })),
          c.attempt(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `CD-${placed.order.id}` })),
        ]);
        const order = await c.run(getOrder(shopper, placed.order.id));
        const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.order.id)));
        return { cancelled, shipped, status: order.status, payment: payment?.status };
      }),
    );
    for (const o of outcomes) {
      if (o.shipped.ok) {
        t.same([o.status, o.payment, o.cancelled.ok ? "ok" : (o.cancelled.error as { code: string }).code], ["dispatched", "captured", "order_dispatched"], "shipped: captured, the cancel refused");
      } else {
        t.same([o.status, o.payment, o.cancelled.ok, (o.shipped.error as { code: string }).code], ["cancelled", "voided", true, "order_state_conflict"], "cancelled: voided, the dispatch refused");
      }
    }
    const level = await stockOf(c, variant.id, location.id);
    const shipped = outcomes.filter((o) => o.shipped.ok).length;
    t.same([level?.onHand, level?.reserved], [20 - shipped, 0], "only shipped units left the stock; nothing stays reserved");
  }),
);
