/**
 * An order: the immutable commercial snapshot of an accepted quote (spec: Order, rule 2). Its
 * workflow (payment, the restaurant's answer) lives in RestaurantOrder, so this row is never
 * updated; the database refuses UPDATE and DELETE.
 */
import { OrderId } from "./Ids.js";
import { Schema } from "effect";
import { PriceSnapshotFields } from "./PriceSnapshot.js";
import { QuoteId } from "./Quote.js";
import { RestaurantId } from "./Restaurant.js";

export { OrderId } from "./Ids.js";

export const Order = Schema.Struct({
  id: OrderId,
  customerId: Schema.String,
  restaurantId: RestaurantId,
  quoteId: QuoteId,
  menuVersion: Schema.Int.pipe(Schema.positive()),
  merchantId: Schema.String,
  ...PriceSnapshotFields,
  placedAt: Schema.DateFromSelf,
});
export type Order = typeof Order.Type;
