/** Products, variants (with their prices) and promotions of the stores' catalogs. */
import { Context, type Effect } from "effect";
import type { Product } from "../../core/commerce/model/Product.js";
import type { Promotion } from "../../core/commerce/model/Promotion.js";
import type { Variant } from "../../core/commerce/model/Variant.js";

export interface CatalogRepository {
  readonly insertProduct: (product: Product) => Effect.Effect<void>;
  readonly findProduct: (id: string) => Effect.Effect<Product | null>;
  /** Inserts a variant; false (nothing written) when the SKU is already used in the store. */
  readonly insertVariant: (variant: Variant) => Effect.Effect<boolean>;
  readonly findVariant: (id: string) => Effect.Effect<Variant | null>;
  /** The variants with these ids (any order; unknown ids are absent). */
  readonly findVariants: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Variant>>;
  readonly variantsOfProduct: (productId: string) => Effect.Effect<ReadonlyArray<Variant>>;
  /** The variants of these products (one query for a page), by id. */
  readonly variantsOfProducts: (productIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Variant>>;
  /** Writes `variant` if the stored version is still `expectedVersion`; false otherwise. */
  readonly updateVariant: (variant: Variant, expectedVersion: number) => Effect.Effect<boolean>;
  /**
   * Products of a store having a purchasable variant, by id, after `afterId`, at most `limit`;
   * with `words`, only products whose title or description has every word as a prefix. A search
   * may come in the order of the adapter's search index instead of strict id order (SQLite: the
   * order products entered the catalog, which is id order unless two were created concurrently),
   * continuing after the product `afterId`: walking the pages gives every match exactly once.
   */
  readonly listProducts: (query: {
    readonly storeId: string;
    readonly words: ReadonlyArray<string>;
    readonly afterId: string | null;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Product>>;
  /** Inserts the promotion; false (nothing written) when its code is already the store's. */
  readonly insertPromotion: (promotion: Promotion) => Effect.Effect<boolean>;
  /** The store's automatic promotions plus those with one of `codes`. */
  readonly promotionsFor: (storeId: string, codes: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Promotion>>;
  /** Counts one use if the limit allows (a conditional update); false when used up. */
  readonly usePromotion: (id: string) => Effect.Effect<boolean>;
  /** Records the promotions whose use the order counted (after the order is written, in its transaction). */
  readonly recordPromotionUses: (use: { readonly storeId: string; readonly orderId: string; readonly promotionIds: ReadonlyArray<string> }) => Effect.Effect<void>;
  /**
   * Gives back the uses the order counted, once however often it is called (each record is
   * marked released by a conditional update); how many were given back.
   */
  readonly releasePromotionUses: (orderId: string, now: Date) => Effect.Effect<number>;
}
export const CatalogRepository = Context.GenericTag<CatalogRepository>("domainkit/commerce/CatalogRepository");
