/**
 * A substitution (spec: should-have): the restaurant proposes to replace one line of an order
 * (an item it cannot supply) with another item of its current menu; the customer accepts or
 * refuses. The order and its lines stay immutable: the substitution is a record of its own.
 * Money never moves silently: the replacement is supplied at the original line's price
 * (`chargedLineTotalMinor`), so the customer is never charged more than the authorization; the
 * replacement's menu price is shown for the customer's decision.
 */
import { SubstitutionId } from "./Ids.js";
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { Currency } from "../../kernel/Money.js";
import { MenuItemId } from "./MenuItem.js";
import { OrderId } from "./Order.js";

export { SubstitutionId } from "./Ids.js";

export const SubstitutionStatus = Schema.Literal("proposed", "accepted", "refused");
export type SubstitutionStatus = typeof SubstitutionStatus.Type;

export const Substitution = Schema.Struct({
  id: SubstitutionId,
  orderId: OrderId,
  lineNo: Schema.Int.pipe(Schema.positive()),
  originalItemId: MenuItemId,
  originalName: Schema.String,
  replacementItemId: MenuItemId,
  replacementName: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive()),
  /** The replacement's unit price on the current menu (for the customer's decision only). */
  replacementUnitPriceMinor: Schema.Int.pipe(Schema.nonNegative()),
  /** What the line costs whatever the decision: the original line total (before tax), as authorized. */
  chargedLineTotalMinor: Schema.Int.pipe(Schema.nonNegative()),
  reason: Schema.NullOr(Schema.String),
  status: SubstitutionStatus,
  proposedBy: Schema.String,
  decidedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type Substitution = typeof Substitution.Type;

/**
 * A substitution as its routes answer it: the record with its order's currency, in which both
 * amounts are counted (docs/conventions.md, HTTP). The currency is the order's, not stored twice.
 */
export const SubstitutionView = Schema.Struct({ ...Substitution.fields, currency: Currency });
export type SubstitutionView = typeof SubstitutionView.Type;
export const SubstitutionWire = wireShape(SubstitutionView);

/** The substitution in its order's currency. */
export const substitutionView = (substitution: Substitution, order: { readonly currency: Currency }): SubstitutionView => ({ ...substitution, currency: order.currency });
