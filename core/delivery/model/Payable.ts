/**
 * What the platform owes one participant (the restaurant or the courier) for one delivered
 * order: a settlement payable placed in that participant's daily payout batch
 * (`<account>:<currency>:<YYYY-MM-DD>`, the UTC day of the completion). Immutable; its
 * `componentKey` is the settlement entry's, unique, so a payable is never recorded twice. A
 * reversal of the settlement adds a reversing payable (negated, `reverses` naming the payable).
 */
import { Schema } from "effect";
import { Currency } from "../../kernel/Money.js";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryId, OrderId, PayableId } from "./Ids.js";

export const Payable = Schema.Struct({
  id: PayableId,
  orderId: OrderId,
  deliveryId: DeliveryId,
  /** The settlement entry's component key (`order:<id>:restaurant_payable`). */
  componentKey: Schema.String,
  /** `restaurant:<id>` or `courier:<id>`. */
  account: Schema.String,
  /** What is owed: positive; negative on a reversing payable. */
  amountMinor: Schema.Int.pipe(Schema.filter((n) => n !== 0 || "a payable is never zero")),
  currency: Currency,
  payoutBatch: Schema.String,
  createdAt: Schema.DateFromSelf,
  /** On a reversing payable (a settlement correction), the component key of the payable it undoes. */
  reverses: Schema.NullOr(Schema.String),
});
export type Payable = typeof Payable.Type;
export const PayableWire = wireShape(Payable);
