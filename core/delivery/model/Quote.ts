/** An expiring, server-calculated price for an order against one menu version (spec: Quote). */
import { QuoteId } from "./Ids.js";
import { Schema } from "effect";
import { PriceSnapshotFields } from "./PriceSnapshot.js";
import { wireShape } from "../../kernel/Wire.js";
import { MenuItemId, Modifier } from "./MenuItem.js";
import { RestaurantId } from "./Restaurant.js";

export { QuoteId } from "./Ids.js";

/** One priced line: the item's name and prices as the quoted menu version had them. */
export const PricedLine = Schema.Struct({
  item_id: MenuItemId,
  name: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive()),
  unit_price_minor: Schema.Int.pipe(Schema.nonNegative()),
  modifiers: Schema.Array(Modifier),
  tax_minor: Schema.Int.pipe(Schema.nonNegative()),
  line_total_minor: Schema.Int.pipe(Schema.nonNegative()),
});
export type PricedLine = typeof PricedLine.Type;

export const Quote = Schema.Struct({
  id: QuoteId,
  customerId: Schema.String,
  restaurantId: RestaurantId,
  menuVersion: Schema.Int.pipe(Schema.positive()),
  lines: Schema.Array(PricedLine),
  ...PriceSnapshotFields,
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
});
export type Quote = typeof Quote.Type;
export const QuoteWire = wireShape(Quote);
