/**
 * One immutable settlement component of an order (spec: Ledger entry): the customer charge
 * against the restaurant's, the courier's and the platform's shares. `componentKey` is unique
 * (`order:<id>:restaurant_payable`), so a component is never posted twice; a correction is a
 * linked reversal (`reverses`) with actor and reason.
 */
import { Schema } from "effect";
import { Currency } from "../../kernel/Money.js";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryId, OrderId, SettlementEntryId } from "./Ids.js";

export const SettlementComponent = Schema.Literal("customer_charge", "restaurant_payable", "courier_payable", "platform_fee");
export type SettlementComponent = typeof SettlementComponent.Type;

export const SettlementEntry = Schema.Struct({
  id: SettlementEntryId,
  orderId: OrderId,
  deliveryId: DeliveryId,
  component: SettlementComponent,
  componentKey: Schema.String,
  /** `customer:<id>`, `restaurant:<id>`, `courier:<id>` or `platform`. */
  account: Schema.String,
  /** Signed: the customer charge is positive, the payables negative; a transaction sums to zero. */
  amountMinor: Schema.Int,
  currency: Currency,
  reverses: Schema.NullOr(Schema.String),
  actorId: Schema.String,
  reason: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
});
export type SettlementEntry = typeof SettlementEntry.Type;
export const SettlementEntryWire = wireShape(SettlementEntry);
