/**
 * Catalog browsing (spec, E-commerce: GET /v1/products?cursor — opaque stable cursor, 400 for a
 * bad one; only purchasable variants; full-text search on FTS5 / tsvector).
 */
import t from "tap";
import { createProduct, getProduct, listProducts, updateVariant } from "../../core/commerce/Catalog.js";
import { adjustStock, stockOfVariant } from "../../core/commerce/Inventory.js";
import { createPromotion } from "../../core/commerce/Promotions.js";
import { forEachCommerceDialect } from "./support.js";
import { commerceRuntime, seedStore } from "./support.js";

t.test("the catalog lists purchasable products by a stable keyset cursor, searches words as prefixes, and refuses a bad cursor", (t) =>
  forEachCommerceDialect(t, "catalog", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, product, variant } = await seedStore(c);
    const kettle = await c.run(
      createProduct(ownerId, store.id, { title: "Copper kettle", description: "Hand-hammered", variants: [{ sku: "KET-1", priceMinor: 4500 }] }),
    );
    const mug = await c.run(createProduct(ownerId, store.id, { title: "Stoneware mug", variants: [{ sku: "MUG-1", priceMinor: 900 }] }));
    await c.run(createProduct(ownerId, store.id, { title: "Hidden draft", variants: [{ sku: "DRAFT", priceMinor: 1, status: "inactive" }] }));

    const first = await c.run(listProducts({ storeId: store.id, q: null, cursor: null, limit: 2 }));
    t.same(first.data.map((p) => p.id), [product.id, kettle.id]);
    t.ok(first.next_cursor);
    const second = await c.run(listProducts({ storeId: store.id, q: null, cursor: first.next_cursor, limit: 2 }));
    t.same(second.data.map((p) => p.id), [mug.id], "the draft with no purchasable variant is not listed");
    t.equal(second.next_cursor, null);

    const bad = await c.attempt(listProducts({ storeId: store.id, q: null, cursor: "garbage", limit: 2 }));
    t.equal(bad.ok ? null : (bad.error as { code: string }).code, "invalid_cursor");

    const found = await c.run(listProducts({ storeId: store.id, q: "hand-hamm COPPER", cursor: null, limit: 10 }));
    t.same(found.data.map((p) => p.id), [kettle.id], "every word matches as a prefix, in title or description");
    const none = await c.run(listProducts({ storeId: store.id, q: "porcelain", cursor: null, limit: 10 }));
    t.same(none.data, []);

    await c.run(updateVariant(ownerId, variant.id, { status: "archived", expectedVersion: variant.version }));
    const gone = await c.attempt(getProduct(product.id));
    t.equal(gone.ok ? null : (gone.error as { code: string }).code, "not_found", "a product without purchasable variants is not shown");
    const stale = await c.attempt(updateVariant(ownerId, variant.id, { priceMinor: 5, expectedVersion: variant.version }));
    t.equal(stale.ok ? null : (stale.error as { code: string }).code, "version_mismatch", "a stale If-Match is 412");
    const missing = await c.attempt(updateVariant(ownerId, variant.id, { priceMinor: 5, expectedVersion: undefined }));
    t.equal(missing.ok ? null : (missing.error as { code: string }).code, "precondition_required", "no If-Match is 428");
  }),
);

/**
 * Conventions (Errors: every bad input is a problem+json error, 422 with `errors`); spec
 * (Authentication 4: inventory adjustments are audited with a reason). Figures beyond what the
 * stock and promotion columns hold are 422 on both dialects, not a 500 from Postgres's integer
 * range: an adjustment's delta of more than 1,000,000,000 units, stock on hand above that, a
 * promotion's usage_limit above it.
 */
t.test("an adjustment or a usage limit beyond what the columns hold is 422 on both dialects, not a 500", (t) =>
  forEachCommerceDialect(t, "integer bounds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 10 });
    const code = (r: { ok: boolean; error?: unknown }) => (r.ok ? "ok" : (r.error as { code: string }).code);
    const paths = (r: { ok: boolean; error?: unknown }) => (r.ok ? [] : ((r.error as { errors?: ReadonlyArray<{ path: string }> }).errors ?? []).map((e) => e.path));
    const huge = await c.attempt(adjustStock(ownerId, { variantId: variant.id, locationId: location.id, delta: 3_000_000_000, reason: "typo" }));
    t.equal(code(huge), "validation_failed", "a delta of 3e9 is 422");
    t.same(paths(huge), ["delta"]);
    await c.run(adjustStock(ownerId, { variantId: variant.id, locationId: location.id, delta: 999_999_990, reason: "bulk" }));
    const over = await c.attempt(adjustStock(ownerId, { variantId: variant.id, locationId: location.id, delta: 1, reason: "one more" }));
    t.equal(code(over), "validation_failed", "on hand above 1,000,000,000 is 422");
    t.same(paths(over), ["delta"]);
    const level = await c.run(stockOfVariant(ownerId, variant.id));
    t.equal(level[0]?.onHand, 1_000_000_000, "the refused adjustment changed nothing");
    const limit = await c.attempt(
      createPromotion(ownerId, store.id, { code: "BIG", kind: "percentage", value: 10, automatic: false, startsAt: null, endsAt: null, usageLimit: 3_000_000_000 }),
    );
    t.equal(code(limit), "validation_failed", "a usage limit of 3e9 is 422");
    t.same(paths(limit), ["usage_limit"]);
  }),
);

/**
 * Spec (E-commerce: "browse and search purchasable products"; conventions, Limits: "Every list,
 * upload, body and batch has a bound"). A product's description is 0 to 5,000 characters: a public
 * page of 200 products stays bounded, and the search index never meets an oversized document.
 */
t.test("a product's description is at most 5000 characters: a longer one is 422 on description and nothing is written", (t) =>
  forEachCommerceDialect(t, "description bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    const long = await c.attempt(createProduct(ownerId, store.id, { title: "Essay", description: "word ".repeat(1001), variants: [{ sku: "ESSAY", priceMinor: 100 }] }));
    t.match(long.ok ? null : long.error, { code: "validation_failed", errors: [{ path: "description" }] });
    const listed = await c.run(listProducts({ storeId: store.id, q: "essay", cursor: null, limit: 10 }));
    t.same(listed.data, [], "nothing was written");
    const fits = await c.run(createProduct(ownerId, store.id, { title: "Essay", description: "w".repeat(5000), variants: [{ sku: "ESSAY", priceMinor: 100 }] }));
    t.equal(fits.description?.length, 5000, "5000 characters fit");
  }),
);
