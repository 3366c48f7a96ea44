/**
 * A promotion rule: a percentage (`value` in whole percent, 1..100) or a fixed amount (`value`
 * in minor units) off, applied by code or automatically, valid in [startsAt, endsAt), at most
 * `usageLimit` orders (counted by a conditional update at checkout).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { PromotionId, StoreId } from "./Ids.js";

export const PromotionKind = Schema.Literal("percentage", "fixed_amount");
export type PromotionKind = typeof PromotionKind.Type;

export const Promotion = Schema.Struct({
  id: PromotionId,
  storeId: StoreId,
  code: Schema.NullOr(Schema.String),
  kind: PromotionKind,
  value: Schema.Int,
  automatic: Schema.Boolean,
  startsAt: Schema.DateFromSelf,
  endsAt: Schema.NullOr(Schema.DateFromSelf),
  usageLimit: Schema.NullOr(Schema.Int),
  usageCount: Schema.Int,
  createdAt: Schema.DateFromSelf,
});
export type Promotion = typeof Promotion.Type;

export const PromotionWire = wireShape(Promotion);
