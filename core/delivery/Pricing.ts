/**
 * Server-side pricing of a quote (spec rule 1: recomputed by the server; docs/decisions.md,
 * Food delivery (slice 1)). Prices exclude tax; tax is computed per line (10%, rounded half
 * up) and stored on the line; the delivery fee is 299 plus 100 per started kilometre beyond
 * the first; the service fee is 5% of the subtotal (rounded half up).
 */
import { Effect } from "effect";
import { ValidationFailed } from "../kernel/Errors.js";
import type { MenuItemView, Modifier } from "./model/MenuItem.js";
import type { PricedLine } from "./model/Quote.js";

export const taxRateBasisPoints = 1000;
export const serviceFeeBasisPoints = 500;
export const baseDeliveryFeeMinor = 299;
export const perKilometreFeeMinor = 100;

/** `amount * bp / 10000`, rounded half up, exactly in integers. */
export const basisPoints = (amount: number, bp: number): number => Math.floor((amount * bp + 5000) / 10000);

/** One requested line. */
export interface LineRequest {
  readonly itemId: string;
  readonly quantity: number;
  readonly modifierIds: ReadonlyArray<string>;
}

/** The fees and totals of a priced basket. */
export interface Totals {
  readonly subtotalMinor: number;
  readonly deliveryFeeMinor: number;
  readonly serviceFeeMinor: number;
  readonly taxMinor: number;
  readonly totalMinor: number;
}

export const deliveryFee = (distanceM: number): number =>
  baseDeliveryFeeMinor + perKilometreFeeMinor * Math.max(0, Math.ceil(distanceM / 1000) - 1);

/**
 * Prices the lines against the items of one menu version; unknown items, unknown modifiers,
 * a quantity outside 1..99 or an empty basket fail ValidationFailed (422).
 */
export const priceLines = (
  requests: ReadonlyArray<LineRequest>,
  items: ReadonlyArray<MenuItemView>,
): Effect.Effect<ReadonlyArray<PricedLine>, ValidationFailed> => {
  const errors: Array<{ path: string; message: string }> = [];
  if (requests.length === 0) errors.push({ path: "lines", message: "at least one line is required" });
  if (requests.length > 100) errors.push({ path: "lines", message: "at most 100 lines" });
  const byId = new Map<string, MenuItemView>(items.map((item) => [item.id, item]));
  const lines: PricedLine[] = [];
  requests.forEach((request, index) => {
    const item = byId.get(request.itemId);
    if (item === undefined) {
      errors.push({ path: `lines.${index}.item_id`, message: "no such item on this menu version" });
      return;
    }
    if (!Number.isInteger(request.quantity) || request.quantity < 1 || request.quantity > 99) {
      errors.push({ path: `lines.${index}.quantity`, message: "must be an integer from 1 to 99" });
      return;
    }
    const modifiers: Modifier[] = [];
    for (const modifierId of new Set(request.modifierIds)) {
      const modifier = item.modifiers.find((m) => m.id === modifierId);
      if (modifier === undefined) errors.push({ path: `lines.${index}.modifier_ids`, message: `no modifier ${modifierId} on this item` });
      else modifiers.push(modifier);
    }
    const unit = item.priceMinor + modifiers.reduce((sum, m) => sum + m.price_minor, 0);
    const lineTotal = unit * request.quantity;
    lines.push({
      item_id: item.id,
      name: item.name,
      quantity: request.quantity,
      unit_price_minor: unit,
      modifiers,
      tax_minor: basisPoints(lineTotal, taxRateBasisPoints),
      line_total_minor: lineTotal,
    });
  });
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.succeed(lines);
};

/** The totals of priced lines for a drop-off `distanceM` away; total = subtotal + fees + tax. */
export const totalsOf = (lines: ReadonlyArray<PricedLine>, distanceM: number): Totals => {
  const subtotalMinor = lines.reduce((sum, line) => sum + line.line_total_minor, 0);
  const taxMinor = lines.reduce((sum, line) => sum + line.tax_minor, 0);
  const deliveryFeeMinor = deliveryFee(distanceM);
  const serviceFeeMinor = basisPoints(subtotalMinor, serviceFeeBasisPoints);
  return { subtotalMinor, deliveryFeeMinor, serviceFeeMinor, taxMinor, totalMinor: subtotalMinor + deliveryFeeMinor + serviceFeeMinor + taxMinor };
};
