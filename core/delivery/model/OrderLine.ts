/** One immutable line of an order: names, modifiers, tax and prices as quoted (spec: OrderLine). */
import { Schema } from "effect";
import { MenuItemId, Modifier } from "./MenuItem.js";
import { OrderId } from "./Order.js";

export const OrderLine = Schema.Struct({
  orderId: OrderId,
  lineNo: Schema.Int.pipe(Schema.positive()),
  itemId: MenuItemId,
  name: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive()),
  unitPriceMinor: Schema.Int.pipe(Schema.nonNegative()),
  modifiers: Schema.Array(Modifier),
  taxMinor: Schema.Int.pipe(Schema.nonNegative()),
  lineTotalMinor: Schema.Int.pipe(Schema.nonNegative()),
});
export type OrderLine = typeof OrderLine.Type;
