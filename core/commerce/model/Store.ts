/**
 * A store: the tenant of the e-commerce module, one legal seller of record. Its payments go
 * to its own payments merchant (`merchantId`, provisioned with the stable reference
 * `store:<id>`). Tax is one rate per store in basis points (docs/decisions.md, E-commerce).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { StoreId } from "./Ids.js";

export const Store = Schema.Struct({
  id: StoreId,
  name: Schema.String,
  currency: Schema.String,
  ownerId: Schema.String,
  merchantId: Schema.String,
  taxRateBasisPoints: Schema.Int,
  createdAt: Schema.DateFromSelf,
});
export type Store = typeof Store.Type;

/** The store as clients see it. */
export const StoreWire = wireShape(Store);
