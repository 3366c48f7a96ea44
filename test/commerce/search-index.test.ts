/**
 * SQLite's catalog search index (commerce migration 6). A search page is read from the FTS5
 * index itself, for this store and these words, in search-key order from the cursor's product:
 * before, every search walked the store's products and tested each against the whole match list,
 * built anew per request (~30 ms at 250,000 products, as much for a rare word). The plan of the
 * statement the repository really prepares is read with EXPLAIN QUERY PLAN; and a database made
 * before the migration finds its products after it, each in its own store only.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlCatalogRepository } from "../../adapters/sql/commerce/SqlCatalogRepository.js";
import { makeSqlStoresRepository } from "../../adapters/sql/commerce/SqlStoresRepository.js";
import { commerceMigrations } from "../../adapters/sql/commerce/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { createTestSqliteFile, openTestDatabase, testModules } from "../support/databases.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { at } from "../contract/Kit.js";
import { kitId, storeRecord, variantRecord } from "../contract/commerce/fixtures.js";
import { commerceTestModules } from "./support.js";

/** Two stores; in each, products `Enamel pot n` with an active variant (store 2's numbered from 100). */
const seed = async (db: Parameters<typeof makeSqlCatalogRepository>[0], perStore: number) => {
  const stores = makeSqlStoresRepository(db);
  const catalog = makeSqlCatalogRepository(db);
  await Effect.runPromise(Effect.all([stores.insertStore(storeRecord(1)), stores.insertStore(storeRecord(2))]));
  for (const storeN of [1, 2]) {
    for (let i = 1; i <= perStore; i++) {
      const n = storeN === 1 ? i : 100 + i;
      await Effect.runPromise(catalog.insertProduct({ id: kitId.prod(n), storeId: kitId.store(storeN), title: `Enamel pot ${n}`, description: null, createdAt: at(n) }));
      await Effect.runPromise(catalog.insertVariant(variantRecord(n, { storeN, productN: n })));
    }
  }
  return catalog;
};

t.test("SQLite: a search page is read from the search index in key order, without walking the store's products or sorting", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  const catalog = await seed(db, 30);
  for (const afterId of [null, kitId.prod(10)]) {
    const { result, executed } = await capturePrepared(
      (text) => text.includes("shop_product_search"),
      () => Effect.runPromise(catalog.listProducts({ storeId: kitId.store(1), words: ["enam", "pot"], afterId, limit: 5 })),
    );
    const first = afterId === null ? 1 : 11;
    t.same(result.map((p) => p.id), [0, 1, 2, 3, 4].map((i) => kitId.prod(first + i)), `the page after ${afterId ?? "the start"}`);
    t.equal(executed.size, 1, "one statement");
    for (const [text, parameters] of executed) {
      const details = await planDetails(db, text, parameters);
      t.match(details[0], /^SCAN shop_product_search VIRTUAL TABLE INDEX/, `the index drives the page: ${details.join(" | ")}`);
      t.ok(details.some((d) => /^SEARCH p USING (COVERING )?INDEX shop_products_search_key \(search_key=\?\)/.test(d)), "each match finds its product by key");
      t.notOk(details.some((d) => /^SCAN p\b/.test(d)), "the store's products are not walked");
      t.notOk(details.some((d) => d.includes("TEMP B-TREE")), "no sort: the index gives the key order");
    }
  }
});

t.test("SQLite: products indexed before commerce migration 6 are found after it, each in its own store only", async (t) => {
  const db = await openSqlite({ filename: createTestSqliteFile(t) });
  t.teardown(db.close);
  const before = commerceMigrations.filter((m) => m.version < 6);
  t.same(before.map((m) => m.version), [1, 2, 3, 4, 5], "migrations 1 to 5 first; 6 (and any later one) after the seed");
  await migrate(db, [...testModules, { name: "commerce", migrations: before }]);
  const catalog = await seed(db, 3);
  await migrate(db, commerceTestModules);
  const found = (storeN: number, words: ReadonlyArray<string>) =>
    Effect.runPromise(catalog.listProducts({ storeId: kitId.store(storeN), words, afterId: null, limit: 10 })).then((ps) => ps.map((p) => p.id));
  t.same(await found(1, ["enamel"]), [1, 2, 3].map((n) => kitId.prod(n)), "store 1's products, not store 2's");
  t.same(await found(2, ["po"]), [101, 102, 103].map((n) => kitId.prod(n)), "store 2's, by a two-letter prefix");
  t.same(await found(1, ["102"]), [], "a word of another store's product finds nothing here");
  t.same(await found(2, ["102"]), [kitId.prod(102)], "and finds it in its own store");
  // Written after the migration: the new triggers keep the index.
  await Effect.runPromise(catalog.insertProduct({ id: kitId.prod(4), storeId: kitId.store(1), title: "Enamel mug", description: "Holds tea", createdAt: at(4) }));
  await Effect.runPromise(catalog.insertVariant(variantRecord(4, { productN: 4 })));
  t.same(await found(1, ["hold", "enam"]), [kitId.prod(4)], "a product added after it, by its description");
});
