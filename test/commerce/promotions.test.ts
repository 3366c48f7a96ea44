/**
 * Promotions (issue: percentage and fixed-amount rules by code or automatic, validity window and
 * usage limit enforced under concurrency; every price answer explains each discount).
 */
import t from "tap";
import { Effect } from "effect";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { expireOrderReservations } from "../../core/commerce/ReservationExpiry.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { getCart } from "../../core/commerce/Carts.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { priceLines } from "../../core/commerce/Pricing.js";
import { createPromotion } from "../../core/commerce/Promotions.js";
import { createProduct, updateVariant } from "../../core/commerce/Catalog.js";
import { ProductId, PromotionId, StoreId, VariantId } from "../../core/commerce/model/Ids.js";
import type { Promotion } from "../../core/commerce/model/Promotion.js";
import type { Variant } from "../../core/commerce/model/Variant.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

const variant = (id: string, priceMinor: number): Variant => ({
  id: VariantId.make(id),
  storeId: StoreId.make("s"),
  productId: ProductId.make("p"),
  sku: id,
  status: "active",
  priceMinor,
  currency: "EUR",
  version: 1,
  updatedAt: new Date(0),
});
const promotion = (id: string, kind: Promotion["kind"], value: number): Promotion => ({
  id: PromotionId.make(id),
  storeId: StoreId.make("s"),
  code: id.toUpperCase(),
  kind,
  value,
  automatic: false,
  startsAt: new Date(0),
  endsAt: null,
  usageLimit: null,
  usageCount: 0,
  createdAt: new Date(0),
});

t.test("the price breakdown explains each discount per line and its integer rounding sums exactly", (t) => {
  const price = priceLines(
    [
      { variant: variant("a", 333), quantity: 1 },
      { variant: variant("b", 333), quantity: 1 },
      { variant: variant("c", 334), quantity: 1 },
    ],
    [promotion("ten", "percentage", 10), promotion("five", "fixed_amount", 100)],
    1900,
    "EUR",
  );
  t.same(price.lines.map((l) => l.discounts.map((d) => [d.promotionId, d.amountMinor])), [
    [["ten", 33], ["five", 33]],
    [["ten", 33], ["five", 33]],
    [["ten", 33], ["five", 34]],
  ]);
  t.equal(price.discountMinor, 199, "33+33+33 percent parts, then the fixed 100 split by largest remainder");
  t.equal(price.subtotalMinor, 1000);
  t.equal(price.taxMinor, price.lines.reduce((a, l) => a + l.taxMinor, 0));
  t.equal(price.totalMinor, 1000 - 199 + price.taxMinor);
  t.end();
});

t.test("a promotion's usage limit holds under parallel checkouts; an unknown or used-up code is 422", (t) =>
  forEachCommerceDialect(t, "usage limit", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 20 });
    await c.run(
      createPromotion(ownerId, store.id, {
        code: "SPRING",
        kind: "percentage",
        value: 20,
        automatic: false,
        startsAt: null,
        endsAt: null,
        usageLimit: 3,
      }),
    );
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const unknown = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { promotionCodes: ["NOPE"] })));
    t.equal(unknown.ok ? null : (unknown.error as { code: string }).code, "promotion_invalid");
    const priced = await c.run(getCart(shopper, cart.id));
    t.equal(priced.price.discountMinor, 0, "a code applies only when given at checkout");

    const shoppers = Array.from({ length: 6 }, () => customer());
    const carts = await Promise.all(shoppers.map((s) => cartWith(c, s, store.id, variant.id, 1)));
    const results = await Promise.all(shoppers.map((s, i) => c.attempt(placeOrder(s, checkoutInput(carts[i]!.id, { promotionCodes: ["SPRING"] })))));
    const won = results.filter((r) => r.ok);
    t.equal(won.length, 3, "exactly the usage limit");
    for (const r of won) if (r.ok) t.equal(r.value.order.discountMinor, 200, "20% of 1,000");
    t.ok(results.filter((r) => !r.ok).every((r) => !r.ok && (r.error as { code: string }).code === "promotion_invalid"));
  }),
);

/**
 * Spec (E-commerce: "promotion rules with an explainable price breakdown"; orders.total_minor "at
 * least 0"; "Checkout fails closed"). Two percentages that together pass 100% (an automatic 60%
 * and a 60% code) compound: the second applies to what the first left, so a line is never
 * discounted below 0 and checkout answers a real total, not a 500 from the database's CHECK.
 */
t.test("stacked percentage promotions apply one after another and never discount a line below 0", (t) =>
  forEachCommerceDialect(t, "stacked percentages", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 5 });
    const percent = (code: string | null, automatic: boolean) =>
      c.run(createPromotion(ownerId, store.id, { code, kind: "percentage", value: 60, automatic, startsAt: null, endsAt: null, usageLimit: null }));
    await percent(null, true);
    await percent("VIP60", false);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const shown = await c.run(getCart(shopper, cart.id));
    t.equal(shown.price.discountMinor, 600, "the cart shows the automatic 60% of 1,000");
    const placed = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { promotionCodes: ["VIP60"] })));
    t.ok(placed.ok, "checkout with both percentages succeeds");
    if (placed.ok) {
      t.equal(placed.value.order.discountMinor, 840, "60%, then 60% of the 400 left: 600 + 240");
      t.equal(placed.value.order.totalMinor, 176, "160 after discounts, with 10% tax");
    }
    const price = priceLines([{ variant: { ...variant, priceMinor: 999 }, quantity: 3 }], [promotion("a", "percentage", 70), promotion("b", "percentage", 70)], 0, "EUR");
    t.ok(price.lines.every((l) => l.discountMinor <= l.subtotalMinor && l.totalMinor >= 0), "no line is discounted below 0");
    t.equal(price.discountMinor, price.lines.reduce((a, l) => a + l.discounts.reduce((b, d) => b + d.amountMinor, 0), 0), "the breakdown adds up");
  }),
);

/**
 * Conventions (Errors: every bad input is a problem+json error). A promotion code is unique per
 * store: a second promotion with the same code is 409 promotion_code_taken (as a SKU is
 * sku_taken), not a 500 from the unique index; another store may use the code.
 */
t.test("a promotion code already used in the store is 409 promotion_code_taken; another store may reuse it", (t) =>
  forEachCommerceDialect(t, "promotion code taken", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c);
    const b = await seedStore(c);
    const make = (ownerId: string, storeId: StoreId) =>
      c.attempt(createPromotion(ownerId, storeId, { code: "SUMMER", kind: "fixed_amount", value: 100, automatic: false, startsAt: null, endsAt: null, usageLimit: null }));
    t.ok((await make(a.ownerId, a.store.id)).ok, "the first SUMMER");
    const again = await make(a.ownerId, a.store.id);
    t.equal(again.ok ? "ok" : (again.error as { code: string }).code, "promotion_code_taken", "a second SUMMER in the store is 409");
    t.ok((await make(b.ownerId, b.store.id)).ok, "another store's SUMMER is its own");
  }),
);

/**
 * Spec (E-commerce: "keeps prices ... money ... correct"; money is integer minor units, and the
 * kernel's sums are exact). Tax, percentages and shares are multiplied and divided exactly, not in
 * floating point: 593 units at 5,923,695,437 with 35.39% tax is 1,243,162,718,386 of tax
 * (half up), where the product 3,512,751,394,141 × 3,539 is beyond 2^53.
 */
t.test("line arithmetic is exact for large figures: tax on a large line is rounded half up from the exact product", (t) => {
  const price = priceLines([{ variant: variant("big", 5_923_695_437), quantity: 593 }], [], 3539, "EUR");
  t.equal(price.subtotalMinor, 3_512_751_394_141);
  t.equal(price.taxMinor, 1_243_162_718_386, "exact, not the floating-point 1,243,162,718,387");
  t.equal(price.totalMinor, 3_512_751_394_141 + 1_243_162_718_386);
  t.end();
});

/**
 * The bound that keeps every cart figure a safe integer: a unit price is at most 10,000,000,000
 * minor units (100 lines × 1,000 units × that, with up to 100% tax, stays below 2^53). Above is
 * 422 on the price's path, when a product is created and when a variant's price changes.
 */
t.test("a unit price above 10,000,000,000 minor units is 422, on create and on update", (t) =>
  forEachCommerceDialect(t, "price bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant: seeded } = await seedStore(c);
    const tooDear = await c.attempt(createProduct(ownerId, store.id, { title: "Yacht", variants: [{ sku: "YACHT", priceMinor: 10_000_000_001 }] }));
    t.equal(tooDear.ok ? "ok" : (tooDear.error as { code: string }).code, "validation_failed");
    if (!tooDear.ok) t.same((tooDear.error as { errors: ReadonlyArray<{ path: string }> }).errors.map((e) => e.path), ["variants/0/price_minor"]);
    t.ok((await c.attempt(createProduct(ownerId, store.id, { title: "Boat", variants: [{ sku: "BOAT", priceMinor: 10_000_000_000 }] }))).ok, "the bound itself is accepted");
    const raised = await c.attempt(updateVariant(ownerId, seeded.id, { priceMinor: 10_000_000_001, expectedVersion: seeded.version }));
    t.equal(raised.ok ? "ok" : (raised.error as { code: string }).code, "validation_failed", "a price change above the bound is 422");
  }),
);

/**
 * Spec (E-commerce: "promotion rules with an explainable price breakdown"; conventions: invalid
 * input is 422 with `errors`, never a 500). A promotion's window is given in years 2000 to 9999:
 * a time the database cannot hold (before 4713 BC on Postgres) or nobody means is 422 on its path.
 */
t.test("a promotion's starts_at and ends_at are times from the year 2000 to 9999: others are 422 on their path", (t) =>
  forEachCommerceDialect(t, "promotion window bounds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    const base = { code: null, kind: "percentage" as const, value: 10, automatic: true, usageLimit: null };
    const ancient = await c.attempt(createPromotion(ownerId, store.id, { ...base, startsAt: new Date("-010000-01-01T00:00:00Z"), endsAt: null }));
    t.match(ancient.ok ? null : ancient.error, { code: "validation_failed", errors: [{ path: "starts_at" }] });
    const distant = await c.attempt(createPromotion(ownerId, store.id, { ...base, startsAt: null, endsAt: new Date("+100000-01-01T00:00:00Z") }));
    t.match(distant.ok ? null : distant.error, { code: "validation_failed", errors: [{ path: "ends_at" }] });
    const fine = await c.run(createPromotion(ownerId, store.id, { ...base, startsAt: null, endsAt: new Date("9999-12-31T00:00:00Z") }));
    t.equal(fine.endsAt?.getUTCFullYear(), 9999);
  }),
);

/**
 * Spec (E-commerce: "keeps prices ... correct across retries and partial failures"; "order |
 * payment fails | failed checkout | reservation released"; Endpoints rule 3: promotion inputs are
 * revalidated). A promotion's use counts for an order that goes through: an order that fails
 * (declined), expires or is cancelled gives its use back, once, so a code limited to one use is
 * not spent by a declined card.
 */
t.test("a promotion's use is given back, once, when its order fails, expires or is cancelled", (t) =>
  forEachCommerceDialect(t, "promotion uses given back", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 20 });
    await c.run(createPromotion(ownerId, store.id, { code: "ONCE", kind: "percentage", value: 10, automatic: false, startsAt: null, endsAt: null, usageLimit: 1 }));
    const uses = async () => (await c.run(Effect.flatMap(CatalogRepository, (r) => r.promotionsFor(store.id, ["ONCE"])))).find((p) => p.code === "ONCE")!.usageCount;
    const checkout = async (paymentMethod = "pm_card_visa") => {
      const shopper = customer();
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      return { shopper, placed: await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { promotionCodes: ["ONCE"], paymentMethod }))) };
    };

    const declined = await checkout("pm_card_declined");
    t.equal(declined.placed.ok ? null : (declined.placed.error as { code: string }).code, "payment_declined");
    t.equal(await uses(), 0, "a declined checkout gives its use back");

    const cancelled = await checkout();
    t.ok(cancelled.placed.ok);
    t.equal(await uses(), 1);
    if (cancelled.placed.ok) await c.run(cancelOrder(cancelled.shopper, cancelled.placed.value.order.id, { reason: "" }));
    t.equal(await uses(), 0, "a cancelled order gives its use back");
    if (cancelled.placed.ok) await c.run(cancelOrder(cancelled.shopper, cancelled.placed.value.order.id, { reason: "" }));

    const pending = await checkout("pm_card_timeout_after");
    t.equal(pending.placed.ok ? pending.placed.value.order.status : null, "payment_pending");
    t.equal(await uses(), 1);
    if (pending.placed.ok) {
      await c.later(16 * 60 * 1000, expireOrderReservations(pending.placed.value.order.id));
      await c.later(17 * 60 * 1000, expireOrderReservations(pending.placed.value.order.id));
    }
    t.equal(await uses(), 0, "an expired order gives its use back, once");

    const kept = await checkout();
    t.equal(kept.placed.ok ? kept.placed.value.order.status : null, "confirmed", "the code serves the next checkout");
    t.equal(await uses(), 1);
    const spent = await checkout();
    t.equal(spent.placed.ok ? null : (spent.placed.error as { code: string }).code, "promotion_invalid", "and is then used up");
  }),
);
