/**
 * Stock of one variant at one location (spec: inventory). `reserved` stays between 0 and
 * `onHand` at all times (a CHECK in the database too); available = onHand − reserved.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { LocationId, StockAdjustmentId, StoreId, VariantId } from "./Ids.js";

/**
 * Most units on hand of one variant at one location, and most units one adjustment moves: the
 * columns are 32-bit integers on Postgres, and on_hand + delta of two such figures stays in range.
 */
export const maxOnHand = 1_000_000_000;

export const StockLevel = Schema.Struct({
  storeId: StoreId,
  variantId: VariantId,
  locationId: LocationId,
  onHand: Schema.Int,
  reserved: Schema.Int,
  version: Schema.Int,
  updatedAt: Schema.DateFromSelf,
});
export type StockLevel = typeof StockLevel.Type;

/** Stock as clients see it, with the derived `available`. */
export const StockLevelView = Schema.Struct({ ...StockLevel.fields, available: Schema.Int });
export type StockLevelView = typeof StockLevelView.Type;
export const StockLevelWire = wireShape(StockLevelView);

export const viewOfStock = (s: StockLevel): StockLevelView => ({ ...s, available: s.onHand - s.reserved });

/** One audited stock adjustment (append-only). */
export const StockAdjustment = Schema.Struct({
  id: StockAdjustmentId,
  storeId: StoreId,
  variantId: VariantId,
  locationId: LocationId,
  delta: Schema.Int,
  reason: Schema.String,
  actorId: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type StockAdjustment = typeof StockAdjustment.Type;
