/**
 * Catalog browsing (spec, E-commerce: GET /v1/products?cursor — opaque stable cursor, 400 for a
 * bad one; only purchasable variants; full-text search on FTS5 / tsvector).
 */
import t from "tap";
import { createProduct, getProduct, listProducts, updateVariant } from "../../core/commerce/Catalog.js";
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
