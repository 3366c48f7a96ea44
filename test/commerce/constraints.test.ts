/**
 * The specification's column rules hold in the database itself (spec, E-commerce: Resources):
 * `reserved` between 0 and `on_hand`, quantities > 0, `payment_intent_ref` unique, SKU unique
 * per store, order lines immutable (UPDATE and DELETE refused), no reference into another store.
 */
import t from "tap";
import { sql } from "kysely";
import { createProduct } from "../../core/commerce/Catalog.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("the database enforces the column rules of stock, orders, lines and catalog", (t) =>
  forEachCommerceDialect(t, "constraints", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c, { stock: 5 });
    const b = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, a.store.id, a.variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const other = customer();
    const otherCart = await cartWith(c, other, a.store.id, a.variant.id, 1);
    const second = await c.run(placeOrder(other, checkoutInput(otherCart.id)));
    const q = db.db;

    await refused(t, "reserved above on_hand", () =>
      q.updateTable("shop_inventory").set({ reserved: 6 }).where("variant_id", "=", a.variant.id).execute(),
    );
    await refused(t, "reserved below 0", () => q.updateTable("shop_inventory").set({ reserved: -1 }).where("variant_id", "=", a.variant.id).execute());
    await refused(t, "on_hand below reserved", () =>
      q.updateTable("shop_inventory").set({ on_hand: 2 }).where("variant_id", "=", a.variant.id).execute(),
    );
    await refused(t, "an order line UPDATE", () =>
      q.updateTable("shop_order_lines").set({ unit_price_minor: 1 }).where("order_id", "=", placed.order.id).execute(),
    );
    await refused(t, "an order line DELETE", () => q.deleteFrom("shop_order_lines").where("order_id", "=", placed.order.id).execute());
    await refused(t, "a timeline rewrite", () => q.deleteFrom("shop_order_timeline").where("order_id", "=", placed.order.id).execute());
    await refused(t, "a second order with the same payment_intent_ref", () =>
      q.updateTable("shop_orders").set({ payment_intent_ref: placed.order.paymentIntentRef }).where("id", "=", second.order.id).execute(),
    );
    await refused(t, "a cart line of quantity 0", () =>
      q.updateTable("shop_cart_lines").set({ quantity: 0 }).where("cart_id", "=", cart.id).execute(),
    );
    await refused(t, "a negative price", () => q.updateTable("shop_variants").set({ price_minor: -1 }).where("id", "=", a.variant.id).execute());
    await refused(t, "a reservation of quantity 0", () =>
      q.updateTable("shop_reservations").set({ quantity: 0 }).where("order_id", "=", placed.order.id).execute(),
    );
    await refused(t, "stock of one store at another store's location", () =>
      q
        .insertInto("shop_inventory")
        .values({
          store_id: a.store.id,
          variant_id: a.variant.id,
          location_id: b.location.id,
          on_hand: 1,
          reserved: 0,
          version: 1,
          updated_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date(),
        })
        .execute(),
    );
    await refused(t, "an unknown order status", () => q.updateTable("shop_orders").set({ status: "shipped" }).where("id", "=", placed.order.id).execute());
    const total = await q.selectFrom("shop_orders").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
    t.equal(Number(total.n), 2);

    const dup = await c.attempt(createProduct(a.ownerId, a.store.id, { title: "Same SKU", variants: [{ sku: a.variant.sku, priceMinor: 1 }] }));
    t.equal(dup.ok ? null : (dup.error as { code: string }).code, "sku_taken", "a SKU is unique per store");
    const elsewhere = await c.run(createProduct(b.ownerId, b.store.id, { title: "Same SKU elsewhere", variants: [{ sku: a.variant.sku, priceMinor: 1 }] }));
    t.equal(elsewhere.variants.length, 1, "another store may use the same SKU");
  }),
);

/**
 * Spec (E-commerce, States: "order not yet dispatched → cancellation requested (202)"): once its
 * cancellation is requested, an order ends cancelled. The database refuses any other move, so no
 * late payment answer can confirm it.
 */
t.test("order not yet dispatched → cancellation requested: the database moves such an order only to cancelled", (t) =>
  forEachCommerceDialect(t, "cancellation requested is final", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, a.store.id, a.variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const q = db.db;
    await q.updateTable("shop_orders").set({ status: "cancellation_requested" }).where("id", "=", placed.order.id).execute();
    for (const status of ["confirmed", "pending", "payment_pending", "failed", "expired", "dispatched"]) {
      await refused(t, `cancellation_requested → ${status}`, () => q.updateTable("shop_orders").set({ status }).where("id", "=", placed.order.id).execute());
    }
    await q.updateTable("shop_orders").set({ status: "cancelled" }).where("id", "=", placed.order.id).execute();
    const row = await q.selectFrom("shop_orders").select("status").where("id", "=", placed.order.id).executeTakeFirstOrThrow();
    t.equal((row as { status: string }).status, "cancelled", "cancelled is allowed");
  }),
);

/**
 * Spec (E-commerce Resources: "The order and its lines are an immutable commercial snapshot.
 * Orders are never soft-deleted; explicit states are used"; Versioning: "Order state changes use
 * version or conditional status updates"). The database refuses deleting an order, rewriting what
 * was sold, replacing a recorded payment_intent_ref, and status moves outside the transition table.
 */
t.test("the order is an immutable commercial snapshot, never deleted, moving only along its states (database)", (t) =>
  forEachCommerceDialect(t, "order snapshot", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, a.store.id, a.variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(placed.order.status, "confirmed");
    const q = db.db;
    const order = () => q.updateTable("shop_orders").where("id", "=", placed.order.id);
    await refused(t, "deleting an order", () => q.deleteFrom("shop_orders").where("id", "=", placed.order.id).execute());
    await refused(t, "a new total", () => order().set({ total_minor: 1 }).execute());
    await refused(t, "a new subtotal", () => order().set({ subtotal_minor: 1 }).execute());
    await refused(t, "a new tax", () => order().set({ tax_minor: 0 }).execute());
    await refused(t, "a new currency", () => order().set({ currency: "USD" }).execute());
    await refused(t, "another customer", () => order().set({ customer_id: customer().userId }).execute());
    await refused(t, "another payment_intent_ref once one is recorded", () => order().set({ payment_intent_ref: "pi_other" }).execute());
    await refused(t, "confirmed → pending", () => order().set({ status: "pending" }).execute());
    await refused(t, "confirmed → failed", () => order().set({ status: "failed" }).execute());
    await refused(t, "confirmed → cancelled without the request", () => order().set({ status: "cancelled" }).execute());
    // What may change: retention's minimization of contact data, and the allowed moves.
    await order().set({ email: null }).execute();
    await order().set({ status: "dispatched" }).execute();
    await refused(t, "dispatched → cancellation_requested", () => order().set({ status: "cancellation_requested" }).execute());
    const row = (await q.selectFrom("shop_orders").selectAll().where("id", "=", placed.order.id).executeTakeFirstOrThrow()) as { status: string; total_minor: unknown; email: unknown };
    t.equal(row.status, "dispatched", "an allowed move is accepted");
    t.equal(Number(row.total_minor), placed.order.totalMinor, "the total is what was sold");
    t.equal(row.email, null, "contact data can still be minimized");
  }),
);

/**
 * Spec (E-commerce Resources, inventory_reservations: "an active reservation can be released;
 * others cannot"; States: "a conditional status change prevents a second release"). The database
 * refuses a reservation's status moving back or twice, a change of what it holds, and its deletion.
 */
t.test("an active reservation can be released, a released or consumed one cannot move again (database)", (t) =>
  forEachCommerceDialect(t, "reservation moves", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, a.store.id, a.variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const q = db.db;
    const reservation = () => q.updateTable("shop_reservations").where("order_id", "=", placed.order.id);
    const status = async () => ((await q.selectFrom("shop_reservations").select("status").where("order_id", "=", placed.order.id).executeTakeFirstOrThrow()) as { status: string }).status;
    t.equal(await status(), "committed", "a confirmed order's reservation is committed");
    await refused(t, "committed → active", () => reservation().set({ status: "active" }).execute());
    await refused(t, "a reservation holding more", () => reservation().set({ quantity: 3 }).execute());
    await refused(t, "a reservation moved to another location", () => reservation().set({ location_id: a.location.id + "x" }).execute());
    await refused(t, "deleting a reservation", () => q.deleteFrom("shop_reservations").where("order_id", "=", placed.order.id).execute());
    await reservation().set({ status: "consumed" }).execute();
    await refused(t, "consumed → released (a second give-back)", () => reservation().set({ status: "released" }).execute());
    await refused(t, "consumed → active", () => reservation().set({ status: "active" }).execute());
    t.equal(await status(), "consumed", "an allowed move is accepted, then it is final");

    const other = customer();
    const otherCart = await cartWith(c, other, a.store.id, a.variant.id, 1);
    const second = await c.run(placeOrder(other, checkoutInput(otherCart.id)));
    const secondReservation = () => q.updateTable("shop_reservations").where("order_id", "=", second.order.id);
    await secondReservation().set({ status: "released" }).execute();
    await refused(t, "released → active", () => secondReservation().set({ status: "active" }).execute());
    await refused(t, "released → committed", () => secondReservation().set({ status: "committed" }).execute());
  }),
);
