/**
 * The explainable price of a cart or order, computed server-side from the catalog: per line the
 * unit price, each discount with its promotion and reason, tax and total; then the sums. Integer
 * minor units throughout (rounding rule: docs/decisions.md, E-commerce).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { PromotionId, VariantId } from "./Ids.js";

export const AppliedDiscount = Schema.Struct({
  promotionId: PromotionId,
  code: Schema.NullOr(Schema.String),
  reason: Schema.String,
  amountMinor: Schema.Int,
});
export type AppliedDiscount = typeof AppliedDiscount.Type;

export const PricedLine = Schema.Struct({
  variantId: VariantId,
  sku: Schema.String,
  quantity: Schema.Int,
  unitPriceMinor: Schema.Int,
  subtotalMinor: Schema.Int,
  discounts: Schema.Array(wireShape(AppliedDiscount)),
  discountMinor: Schema.Int,
  taxMinor: Schema.Int,
  totalMinor: Schema.Int,
});
export type PricedLine = typeof PricedLine.Type;

export const PriceBreakdown = Schema.Struct({
  lines: Schema.Array(wireShape(PricedLine)),
  subtotalMinor: Schema.Int,
  discountMinor: Schema.Int,
  taxMinor: Schema.Int,
  totalMinor: Schema.Int,
  currency: Schema.String,
});
export type PriceBreakdown = typeof PriceBreakdown.Type;
