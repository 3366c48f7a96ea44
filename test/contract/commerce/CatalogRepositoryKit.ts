/**
 * Contract kit for the e-commerce CatalogRepository: a SKU is unique per store (taken in the same
 * store: nothing written; another store may reuse it); a variant changes only at the version the
 * caller read (conditional update); products are listed per store, only with a purchasable
 * variant, in id order after the keyset cursor, and search words match as prefixes (a search may
 * come in its index's order, but its pages give every match once); promotions
 * are answered per store (automatic ones, plus those whose code is given); a promotion's uses
 * never pass its limit, also when they race on separate connections.
 */
import { Effect } from "effect";
import type { Promotion } from "../../../core/commerce/model/Promotion.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, runCases, T0, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, storeRecord, variantRecord } from "./fixtures.js";

/** The ports this kit needs. */
export type CatalogKitPorts = CatalogRepository | StoresRepository;

const catalog = <A>(f: (r: CatalogRepository) => Effect.Effect<A>) => Effect.flatMap(CatalogRepository, f);

const twoStores = Effect.flatMap(StoresRepository, (r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))]));

/** Product `n` of store `storeN`. */
const product = (n: number, storeN = 1, title = `Product ${n}`, description: string | null = null) =>
  catalog((r) => r.insertProduct({ id: kitId.prod(n), storeId: kitId.store(storeN), title, description, createdAt: at(n) }));

const promotion = (n: number, overrides: Partial<Promotion> = {}): Promotion => ({
  id: kitId.promo(n),
  storeId: kitId.store(1),
  code: null,
  kind: "percentage",
  value: 10,
  automatic: true,
  startsAt: T0,
  endsAt: null,
  usageLimit: null,
  usageCount: 0,
  createdAt: at(n),
  ...overrides,
});

const listed = (storeN: number, afterId: string | null, limit: number, words: ReadonlyArray<string> = []) =>
  Effect.map(
    catalog((r) => r.listProducts({ storeId: kitId.store(storeN), words, afterId, limit })),
    (products) => products.map((p) => p.id),
  );

/** The cases of the catalog kit. */
export const catalogCases: ReadonlyArray<KitCase<CatalogKitPorts>> = [
  {
    name: "catalog: a SKU is unique per store; another store may reuse it",
    run: async (t, run) => {
      await run(twoStores);
      await run(Effect.all([product(1, 1), product(2, 2)]));
      t.ok(await run(catalog((r) => r.insertVariant(variantRecord(1, { sku: "TEA" })))));
      t.notOk(await run(catalog((r) => r.insertVariant(variantRecord(2, { sku: "TEA" })))), "the same SKU in the same store writes nothing");
      t.equal(await run(catalog((r) => r.findVariant(kitId.var(2)))), null);
      t.ok(await run(catalog((r) => r.insertVariant(variantRecord(3, { storeN: 2, productN: 2, sku: "TEA" })))), "another store may use it");
      t.same((await run(catalog((r) => r.findVariants([kitId.var(1), kitId.var(3), kitId.var(9)])))).map((v) => v.id).sort(), [kitId.var(1), kitId.var(3)], "unknown ids are absent");
    },
  },
  {
    name: "catalog: a variant changes only at the version the caller read",
    run: async (t, run) => {
      await run(twoStores);
      await run(product(1));
      await run(catalog((r) => r.insertVariant(variantRecord(1))));
      const read = (await run(catalog((r) => r.findVariant(kitId.var(1)))))!;
      t.ok(await run(catalog((r) => r.updateVariant({ ...read, priceMinor: 250, version: read.version + 1, updatedAt: at(5) }, read.version))));
      t.notOk(await run(catalog((r) => r.updateVariant({ ...read, priceMinor: 999, version: read.version + 1, updatedAt: at(6) }, read.version))), "a stale version writes nothing");
      t.same(
        await run(Effect.map(catalog((r) => r.findVariant(kitId.var(1))), (v) => [v?.priceMinor, v?.version])),
        [250, read.version + 1],
        "the first writer's change stands",
      );
    },
  },
  {
    name: "catalog: products are listed per store, only with a purchasable variant, in id order after the cursor; words match as prefixes",
    run: async (t, run) => {
      await run(twoStores);
      await run(product(1, 1, "Cast iron teapot", "Holds a litre"));
      await run(product(2, 1, "Tea cups"));
      await run(product(3, 1, "Retired kettle"));
      await run(product(4, 1, "Green tea", "Loose leaf"));
      await run(product(5, 2, "Teapot elsewhere"));
      await run(catalog((r) => r.insertVariant(variantRecord(1, { productN: 1 }))));
      await run(catalog((r) => r.insertVariant(variantRecord(2, { productN: 2 }))));
      await run(catalog((r) => r.insertVariant(variantRecord(3, { productN: 3, status: "archived" }))));
      await run(catalog((r) => r.insertVariant(variantRecord(4, { productN: 4, status: "inactive" }))));
      await run(catalog((r) => r.insertVariant(variantRecord(5, { productN: 4 }))));
      await run(catalog((r) => r.insertVariant(variantRecord(6, { storeN: 2, productN: 5 }))));
      t.same(await run(listed(1, null, 10)), [kitId.prod(1), kitId.prod(2), kitId.prod(4)], "the store's purchasable products, by id");
      t.same(await run(listed(1, null, 2)), [kitId.prod(1), kitId.prod(2)], "at most the limit");
      t.same(await run(listed(1, kitId.prod(2), 2)), [kitId.prod(4)], "after the cursor id");
      t.same(await run(listed(1, null, 10, ["tea"])), [kitId.prod(1), kitId.prod(2), kitId.prod(4)], "a word matches as a prefix of title words");
      t.same(await run(listed(1, null, 10, ["tea", "lit"])), [kitId.prod(1)], "every word must match, description included");
      t.same(await run(listed(1, kitId.prod(1), 10, ["tea"])), [kitId.prod(2), kitId.prod(4)], "search pages by the same cursor");
      t.same(await run(listed(1, null, 10, ["kettle"])), [], "a product without a purchasable variant is not found");
      t.same(await run(listed(2, null, 10)), [kitId.prod(5)], "another store's catalog is its own");
      t.same(
        (await run(catalog((r) => r.variantsOfProducts([kitId.prod(1), kitId.prod(4)])))).map((v) => v.id).sort(),
        [kitId.var(1), kitId.var(4), kitId.var(5)],
        "the variants of a page in one call",
      );
    },
  },
  {
    name: "catalog: a search pages alike whether its words are common or rare in the store (every match, in id order, none twice)",
    run: async (t, run) => {
      await run(twoStores);
      // 30 products: every one says "common", every tenth also "rare"; product 7 has no purchasable variant.
      for (let n = 1; n <= 30; n++) {
        await run(product(n, 1, `Common item ${n}`, n % 10 === 0 ? "a rare find" : null));
        await run(catalog((r) => r.insertVariant(variantRecord(n, { productN: n, ...(n === 7 ? { status: "archived" as const } : {}) }))));
      }
      const walk = async (words: ReadonlyArray<string>, limit: number): Promise<string[]> => {
        const seen: string[] = [];
        for (let after: string | null = null; ; ) {
          const page: ReadonlyArray<string> = await run(listed(1, after, limit, words));
          seen.push(...page);
          if (page.length < limit) return seen;
          after = page[page.length - 1]!;
        }
      };
      const all = Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => n !== 7).map((n) => kitId.prod(n));
      t.same(await walk(["common"], 4), all, "a word every product has: every purchasable product once, in id order");
      t.same(await walk(["rare"], 4), [kitId.prod(10), kitId.prod(20), kitId.prod(30)], "a rare word: exactly its products");
      t.same(await walk(["common", "rar"], 2), [kitId.prod(10), kitId.prod(20), kitId.prod(30)], "every word must match, prefixes included");
      t.same(await walk(["nowhere"], 4), [], "no match: an empty page");
    },
  },
  {
    name: "catalog: a search walked page by page gives every match once, also for products not created in id order",
    run: async (t, run) => {
      await run(twoStores);
      // Created out of id order (as two concurrent requests may commit), with another store's match between them.
      for (const [n, storeN] of [[3, 1], [1, 1], [9, 2], [2, 1], [5, 1], [4, 1]] as const) {
        await run(product(n, storeN, `Enamel pot ${n}`));
        await run(catalog((r) => r.insertVariant(variantRecord(n, { storeN, productN: n }))));
      }
      const walk = async (limit: number): Promise<string[]> => {
        const seen: string[] = [];
        for (let after: string | null = null; ; ) {
          const page: ReadonlyArray<string> = await run(listed(1, after, limit, ["enam"]));
          seen.push(...page);
          if (page.length < limit) return seen;
          after = page[page.length - 1]!;
        }
      };
      const store1 = [1, 2, 3, 4, 5].map((n) => kitId.prod(n));
      for (const limit of [1, 2, 5]) {
        const seen = await walk(limit);
        t.equal(seen.length, store1.length, `pages of ${limit}: no match twice, none skipped`);
        t.same([...seen].sort(), store1, `pages of ${limit}: exactly the store's matches`);
      }
    },
  },
  {
    name: "catalog: promotions are the store's automatic ones plus those whose code is given",
    run: async (t, run) => {
      await run(twoStores);
      await run(catalog((r) => r.insertPromotion(promotion(1))));
      await run(catalog((r) => r.insertPromotion(promotion(2, { code: "WELCOME", automatic: false }))));
      await run(catalog((r) => r.insertPromotion(promotion(3, { code: "OTHER", automatic: false }))));
      await run(catalog((r) => r.insertPromotion(promotion(4, { storeId: kitId.store(2) }))));
      const ids = (codes: ReadonlyArray<string>) => Effect.map(catalog((r) => r.promotionsFor(kitId.store(1), codes)), (ps) => ps.map((p) => p.id).sort());
      t.same(await run(ids([])), [kitId.promo(1)], "without codes, the automatic ones");
      t.same(await run(ids(["WELCOME"])), [kitId.promo(1), kitId.promo(2)], "a given code adds its promotion");
      t.same(await run(ids(["NOPE"])), [kitId.promo(1)], "an unknown code adds nothing");
    },
  },
  {
    name: "catalog: a promotion's uses never pass its limit",
    run: async (t, run) => {
      await run(twoStores);
      await run(catalog((r) => r.insertPromotion(promotion(1, { usageLimit: 2 }))));
      await run(catalog((r) => r.insertPromotion(promotion(2))));
      const use = (n: number) => catalog((r) => r.usePromotion(kitId.promo(n)));
      t.same([await run(use(1)), await run(use(1)), await run(use(1))], [true, true, false], "two uses, then used up");
      t.same([await run(use(2)), await run(use(2)), await run(use(2))], [true, true, true], "no limit: every use counts");
      const promotions = await run(catalog((r) => r.promotionsFor(kitId.store(1), [])));
      t.same(promotions.map((p) => p.usageCount), [2, 3]);
    },
  },
  {
    name: "catalog: ten concurrent uses of a promotion limited to three: exactly three count",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(twoStores);
      await run(catalog((r) => r.insertPromotion(promotion(1, { usageLimit: 3 }))));
      await run(warmUp(10, catalog((r) => r.promotionsFor(kitId.store(1), []))));
      const results = await run(Effect.all(Array.from({ length: 10 }, () => catalog((r) => r.usePromotion(kitId.promo(1)))), { concurrency: "unbounded" }));
      t.equal(results.filter(Boolean).length, 3);
      t.same((await run(catalog((r) => r.promotionsFor(kitId.store(1), [])))).map((p) => p.usageCount), [3]);
    },
  },
];

/** Runs the catalog kit against the adapter `options.factory` makes. */
export const catalogRepositorySuite = (options: SuiteOptions<CatalogKitPorts>): Promise<unknown> => runCases(options, catalogCases);
