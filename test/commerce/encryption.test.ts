/**
 * Sensitive fields are encrypted at rest (issue rule 7: address and e-mail sealed with
 * AES-256-GCM under a configured key, its key id stored for rotation).
 */
import { randomBytes } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { makeAesGcmFieldSealer } from "../../adapters/commerce/FieldSealer.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore, testSealingKey } from "./support.js";

t.test("an order's address and e-mail are stored sealed under a named key, read back plain, and keys rotate", (t) =>
  forEachCommerceDialect(t, "encryption at rest", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const raw = await db.db.selectFrom("shop_orders").select(["shipping_address", "email"]).where("id", "=", placed.order.id).executeTakeFirstOrThrow();
    t.notOk(JSON.stringify(raw).includes("Analytical"), "no street in the row");
    t.notOk(JSON.stringify(raw).includes("ada@example.com"), "no e-mail in the row");
    t.match(String(raw.shipping_address), /^v1\.k1\./, "the sealed value names its key");
    const view = await c.run(getOrder(shopper, placed.order.id));
    t.equal(view.shippingAddress.line1, "1 Analytical St");
    t.equal(view.email, "ada@example.com");

    const rotatedKeys = { currentKeyId: "k2", keys: { k1: testSealingKey, k2: randomBytes(32) } };
    const rotated = makeAesGcmFieldSealer(rotatedKeys);
    const after = commerceRuntime(t, db, undefined, rotatedKeys);
    const old = await after.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id)));
    t.equal(old?.email, "ada@example.com", "an order sealed with the old key still opens after rotation");
    const secondShopper = customer();
    const secondCart = await cartWith(after, secondShopper, store.id, variant.id, 1);
    const second = await after.run(placeOrder(secondShopper, checkoutInput(secondCart.id)));
    const sealed = await db.db.selectFrom("shop_orders").select("email").where("id", "=", second.order.id).executeTakeFirstOrThrow();
    t.match(String(sealed.email), /^v1\.k2\./, "new writes use the current key");
    t.throws(() => rotated.open(String(sealed.email).replace(/\.([^.]+)$/, ".AAAA")), "a tampered value does not open");
  }),
);
