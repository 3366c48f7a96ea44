/** A product of a store's catalog; it presents one or more variants (sellable SKUs). */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { Variant } from "./Variant.js";
import { ProductId, StoreId } from "./Ids.js";

export const Product = Schema.Struct({
  id: ProductId,
  storeId: StoreId,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
});
export type Product = typeof Product.Type;

export const ProductWire = wireShape(Product);

/** A product with its variants, as the catalog answers it. */
export const ProductWithVariants = Schema.Struct({ ...Product.fields, variants: Schema.Array(wireShape(Variant)) });
export type ProductWithVariants = typeof ProductWithVariants.Type;
