/**
 * A sellable SKU (spec: product_variants). Its price is its own field (`priceMinor` in the
 * store's currency, at least 0): the catalog price is the variant's, versioned with it, and a
 * cart or order never stores an authoritative price of its own. Only `active` variants are
 * purchasable.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProductId, StoreId, VariantId } from "./Ids.js";

export const VariantStatus = Schema.Literal("active", "inactive", "archived");
export type VariantStatus = typeof VariantStatus.Type;

export const Variant = Schema.Struct({
  id: VariantId,
  storeId: StoreId,
  productId: ProductId,
  sku: Schema.String,
  status: VariantStatus,
  priceMinor: Schema.Int,
  currency: Schema.String,
  version: Schema.Int,
  updatedAt: Schema.DateFromSelf,
});
export type Variant = typeof Variant.Type;

export const VariantWire = wireShape(Variant);
