/** The CatalogRepository port over `shop_products`, `shop_variants` and `shop_promotions`. */
import { Effect } from "effect";
import { sql, type ExpressionBuilder } from "kysely";
import { Product } from "../../../core/commerce/model/Product.js";
import { Promotion } from "../../../core/commerce/model/Promotion.js";
import { Variant } from "../../../core/commerce/model/Variant.js";
import type { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the catalog repository over `db`. */
export const makeSqlCatalogRepository = (db: SqlDatabase): CatalogRepository => {
  const f = featuresFor(db);
  const products = rowCodec(Product, f);
  const variants = rowCodec(Variant, f);
  const promotions = rowCodec(Promotion, f);
  return {
    insertProduct: (product) =>
      runQuery(db, (ex) => ex.insertInto("shop_products").values(products.toRow(product)).execute()).pipe(Effect.asVoid),
    findProduct: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_products").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : products.fromRow(r))),
      ),
    insertVariant: (variant) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("shop_variants")
          .values(variants.toRow(variant))
          .onConflict((oc) => oc.columns(["store_id", "sku"]).doNothing())
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numInsertedOrUpdatedRows ?? 0) > 0),
        withSpan("CatalogRepository.insertVariant"),
      ),
    findVariant: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_variants").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : variants.fromRow(r))),
      ),
    findVariants: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("shop_variants").selectAll().where("id", "in", [...ids]).execute()).pipe(
            Effect.map((rows) => rows.map(variants.fromRow)),
          ),
    variantsOfProduct: (productId) =>
      runQuery(db, (ex) => ex.selectFrom("shop_variants").selectAll().where("product_id", "=", productId).orderBy("id").execute()).pipe(
        Effect.map((rows) => rows.map(variants.fromRow)),
      ),
    variantsOfProducts: (productIds) =>
      productIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("shop_variants").selectAll().where("product_id", "in", [...productIds]).orderBy("id").execute()).pipe(
            Effect.map((rows) => rows.map(variants.fromRow)),
          ),
    updateVariant: (variant, expectedVersion) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_variants")
          .set({
            status: variant.status,
            price_minor: variant.priceMinor,
            version: variant.version,
            updated_at: f.timeToDb(variant.updatedAt),
          })
          .where("id", "=", variant.id)
          .where("version", "=", expectedVersion)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) > 0),
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
              sql<boolean>`to_tsvector('simple', p.title || ' ' || coalesce(p.description, '')) @@ to_tsquery('simple', ${words.map((w) => `${w}:*`).join(" & ")})`,
            )
            .orderBy("p.id")
            .limit(limit)
            .execute();
        }
        // Words are letters and digits only (the core splits the query), so the match syntax is safe.
        // The match list is the index's integer keys (no column of the search table is read): SQLite
        // keeps it as a set of integers while it walks the store's products in id order. The unary
        // `+` keeps the planner from driving by search_key instead, which sorts every match by id.
        const match = words.map((w) => `"${w}"*`).join(" ");
        return listing()
          .where(sql<boolean>`+p.search_key IN (SELECT rowid FROM shop_product_search WHERE shop_product_search MATCH ${match})`)
          .orderBy("p.id")
          .limit(limit)
          .execute();
      }).pipe(Effect.map((rows) => rows.map(products.fromRow))),
    insertPromotion: (promotion) =>
      runQuery(db, (ex) => ex.insertInto("shop_promotions").values(promotions.toRow(promotion)).execute()).pipe(Effect.asVoid),
    promotionsFor: (storeId, codes) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("shop_promotions")
          .selectAll()
          .where("store_id", "=", storeId)
          .where((eb) => (codes.length === 0 ? eb("automatic", "=", f.dialect === "sqlite" ? 1 : true) : eb.or([eb("automatic", "=", f.dialect === "sqlite" ? 1 : true), eb("code", "in", [...codes])])))
          .orderBy("id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(promotions.fromRow))),
    usePromotion: (id) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_promotions")
          .set((eb) => ({ usage_count: eb("usage_count", "+", 1) }))
          .where("id", "=", id)
          .where((eb) => eb.or([eb("usage_limit", "is", null), eb("usage_count", "<", eb.ref("usage_limit"))]))
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) > 0)),
  };
};
