/** The CatalogRepository port over `shop_products`, `shop_variants` and `shop_promotions`. */
import { Effect } from "effect";
import { sql, type ExpressionBuilder } from "kysely";
import { Product } from "../../../core/commerce/model/Product.js";
import { Promotion } from "../../../core/commerce/model/Promotion.js";
import { Variant } from "../../../core/commerce/model/Variant.js";
import type { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { featuresFor } from "../featuresFor.js";
import { fts5PrefixQuery, tsqueryPrefix } from "../FullTextQuery.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledPerListLength, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/**
 * A store's token in the SQLite search index (commerce migration 6 writes the same, in SQL): `s`
 * and the hex of the id's UTF-8 bytes, so that it is one token whatever characters the id has.
 */
export const storeSearchToken = (storeId: string): string => `s${Buffer.from(storeId, "utf8").toString("hex")}`;

/** Builds the catalog repository over `db`. */
export const makeSqlCatalogRepository = (db: SqlDatabase): CatalogRepository => {
  const f = featuresFor(db);
  const products = rowCodec(Product, f);
  const variants = rowCodec(Variant, f);
  const promotions = rowCodec(Promotion, f);
  const automatic = f.dialect === "sqlite" ? 1 : true;
  // The catalog reads of the cart and checkout requests and the catalog's writes, compiled once.
  const insertProduct = compiledInsert("shop_products", products);
  const selectProduct = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_products").selectAll().where("id", "=", p("id")));
  const insertVariantIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_variants")
      .values(slotsOf(variants.columns, p))
      .onConflict((oc) => oc.columns(["store_id", "sku"]).doNothing()),
  );
  const selectVariant = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_variants").selectAll().where("id", "=", p("id")));
  // One statement per count of ids (a cart's lines).
  const selectVariants = compiledPerListLength<Record<never, never>>((ex, _p, ids) =>
    ex.selectFrom("shop_variants").selectAll().where("id", "in", [...ids]),
  );
  const selectVariantsOfProduct = compiledOnce<{ productId: string }>((ex, p) =>
    ex.selectFrom("shop_variants").selectAll().where("product_id", "=", p("productId")).orderBy("id"),
  );
  const updateVariantIfVersion = compiledOnce<{ id: string; status: string; priceMinor: number; version: number; at: unknown; expectedVersion: number }>(
    (ex, p) =>
      ex
        .updateTable("shop_variants")
        .set({
          status: p("status"),
          price_minor: p("priceMinor"),
          version: p("version"),
          updated_at: p("at"),
        })
        .where("id", "=", p("id"))
        .where("version", "=", p("expectedVersion")),
  );
  // A code is unique per store: a taken one inserts nothing (automatic promotions without a code never conflict).
  const insertPromotionIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_promotions")
      .values(slotsOf(promotions.columns, p))
      .onConflict((oc) => oc.columns(["store_id", "code"]).doNothing()),
  );
  // One statement per count of codes: none (the automatic promotions only) is checkout's usual case.
  const selectPromotions = compiledPerListLength<{ storeId: string }>((ex, p, codes) =>
    ex
      .selectFrom("shop_promotions")
      .selectAll()
      .where("store_id", "=", p("storeId"))
      .where((eb) => (codes.length === 0 ? eb("automatic", "=", automatic) : eb.or([eb("automatic", "=", automatic), eb("code", "in", [...codes])])))
      .orderBy("id"),
  );
  const updatePromotionUse = compiledOnce<{ id: string }>((ex, p) =>
    ex
      .updateTable("shop_promotions")
      .set((eb) => ({ usage_count: eb("usage_count", "+", 1) }))
      .where("id", "=", p("id"))
      .where((eb) => eb.or([eb("usage_limit", "is", null), eb("usage_count", "<", eb.ref("usage_limit"))])),
  );
  return {
    insertProduct: (product) => runStatement(db, insertProduct, product).pipe(Effect.asVoid),
    findProduct: (id) =>
      runStatement(db, selectProduct, { id }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : products.fromRow(r)))),
    insertVariant: (variant) =>
      runStatement(db, insertVariantIfNew, variants.toRow(variant)).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
        withSpan("CatalogRepository.insertVariant"),
      ),
    findVariant: (id) =>
      runStatement(db, selectVariant, { id }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : variants.fromRow(r)))),
    findVariants: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : runStatement(db, selectVariants, { list: ids }).pipe(Effect.map(({ rows }) => rows.map(variants.fromRow))),
    variantsOfProduct: (productId) =>
      runStatement(db, selectVariantsOfProduct, { productId }).pipe(Effect.map(({ rows }) => rows.map(variants.fromRow))),
    variantsOfProducts: (productIds) =>
      productIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("shop_variants").selectAll().where("product_id", "in", [...productIds]).orderBy("id").execute()).pipe(
            Effect.map((rows) => rows.map(variants.fromRow)),
          ),
    updateVariant: (variant, expectedVersion) =>
      runStatement(db, updateVariantIfVersion, {
          id: variant.id,
          status: variant.status,
          priceMinor: variant.priceMinor,
          version: variant.version,
          at: f.timeToDb(variant.updatedAt),
          expectedVersion,
        }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
        withSpan("CatalogRepository.updateVariant"),
      ),
    listProducts: ({ storeId, words, afterId, limit }) =>
      runQuery(db, async (ex) => {
        const purchasable = (eb: ExpressionBuilder<any, "p">) =>
          eb.exists(
            eb
              .selectFrom("shop_variants as v")
              .select(sql.lit(1).as("one"))
              .whereRef("v.product_id", "=", "p.id")
              .where("v.status", "=", "active"),
          );
        const listing = () => {
          let q = ex.selectFrom("shop_products as p").selectAll("p").where("p.store_id", "=", storeId).where(purchasable);
          if (afterId !== null) q = q.where("p.id", ">", afterId);
          return q;
        };
        if (words.length === 0) return listing().orderBy("p.id").limit(limit).execute();
        if (db.dialect !== "sqlite") {
          return listing()
            .where(
              sql<boolean>`to_tsvector('simple', p.title || ' ' || coalesce(p.description, '')) @@ to_tsquery('simple', ${tsqueryPrefix(words)})`,
            )
            .orderBy("p.id")
            .limit(limit)
            .execute();
        }
        // The index answers the page itself (commerce migration 6): its matches for this store and
        // these words, in search-key order after the cursor's product, streamed by FTS5 until the
        // page is full. Words are letters and digits only (core/kernel/SearchTerms.ts), and the
        // store's token is hex, so the match syntax is safe.
        const match = `store : ${storeSearchToken(storeId)} AND body : (${fts5PrefixQuery(words)})`;
        let page = ex
          .selectFrom("shop_product_search")
          .innerJoin("shop_products as p", "p.search_key", "shop_product_search.rowid")
          .selectAll("p")
          .where(sql<boolean>`shop_product_search MATCH ${match}`)
          .where("p.store_id", "=", storeId)
          .where(purchasable);
        if (afterId !== null) {
          // The cursor's product (or, for an id the store does not have, the one before it in id order).
          page = page.where(
            sql<boolean>`shop_product_search.rowid > coalesce((SELECT search_key FROM shop_products WHERE store_id = ${storeId} AND id <= ${afterId} ORDER BY id DESC LIMIT 1), 0)`,
          );
        }
        return page.orderBy(sql`shop_product_search.rowid`).limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(products.fromRow))),
    insertPromotion: (promotion) =>
      runStatement(db, insertPromotionIfNew, promotions.toRow(promotion)).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    promotionsFor: (storeId, codes) =>
      runStatement(db, selectPromotions, { storeId, list: codes }).pipe(Effect.map(({ rows }) => rows.map(promotions.fromRow))),
    usePromotion: (id) => runStatement(db, updatePromotionUse, { id }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
    recordPromotionUses: ({ storeId, orderId, promotionIds }) =>
      promotionIds.length === 0
        ? Effect.void
        : runQuery(db, (ex) =>
            ex
              .insertInto("shop_order_promotions")
              .values(promotionIds.map((promotionId) => ({ order_id: orderId, store_id: storeId, promotion_id: promotionId, released_at: null })))
              .execute(),
          ).pipe(Effect.asVoid),
    releasePromotionUses: (orderId, now) =>
      Effect.gen(function* () {
        // Marked first, conditionally: a second release finds nothing to give back.
        const released = yield* runQuery(db, (ex) =>
          ex
            .updateTable("shop_order_promotions")
            .set({ released_at: f.timeToDb(now) })
            .where("order_id", "=", orderId)
            .where("released_at", "is", null)
            .returning("promotion_id")
            .execute(),
        );
        for (const { promotion_id } of released) {
          yield* runQuery(db, (ex) =>
            ex
              .updateTable("shop_promotions")
              .set((eb) => ({ usage_count: eb("usage_count", "-", 1) }))
              .where("id", "=", String(promotion_id))
              .where("usage_count", ">", 0)
              .execute(),
          );
        }
        return released.length;
      }).pipe(withSpan("CatalogRepository.releasePromotionUses")),
  };
};
