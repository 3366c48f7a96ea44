/**
 * Server-side pricing (spec, Endpoints rule 3): a cart's lines priced from the catalog as it is
 * now, with the store's promotions and tax, as an explainable breakdown. Pure; the callers load
 * the variants and promotions.
 *
 * Rounding (docs/decisions.md, E-commerce): a percentage discount is rounded half up per line,
 * on what earlier percentages (in promotion id order) left of it, so stacked percentages compound;
 * a fixed-amount discount is spread over the lines in proportion to their subtotals by the
 * largest-remainder method (so the parts sum exactly to the amount, capped at the subtotal);
 * tax is rounded half up per line on (subtotal − discount). Totals are sums of line values.
 * Products are multiplied and divided exactly (`mulDivHalfUp`), and unit prices are bounded
 * (`maxPriceMinor`) so every figure of a cart stays a safe integer.
 */
import type { Promotion } from "./model/Promotion.js";
import type { AppliedDiscount, PriceBreakdown, PricedLine } from "./model/Pricing.js";
import type { Variant } from "./model/Variant.js";

/** One line to price. */
export interface LineToPrice {
  readonly variant: Variant;
  readonly quantity: number;
}

/**
 * `a × b / d` rounded half up (non-negative integers), computed exactly (BigInt): the product may
 * pass 2^53 (a large line's tax), the result stays a safe integer under `maxPriceMinor`.
 */
export const mulDivHalfUp = (a: number, b: number, d: number): number =>
  Number((2n * BigInt(a) * BigInt(b) + BigInt(d)) / (2n * BigInt(d)));

/**
 * Most minor units of one unit price: 100 lines × 1,000 units × this, with up to 100% tax, stays
 * below 2^53, so every cart and order figure is a safe integer.
 */
export const maxPriceMinor = 10_000_000_000;

/** Whether `promotion` applies at `at` (window and usage limit; code matching is the caller's). */
export const promotionActive = (promotion: Promotion, at: Date): boolean =>
  promotion.startsAt.getTime() <= at.getTime() &&
  (promotion.endsAt === null || at.getTime() < promotion.endsAt.getTime()) &&
  (promotion.usageLimit === null || promotion.usageCount < promotion.usageLimit);

/** Splits `amount` over `weights` in proportion, by largest remainder (the parts sum to `amount`). */
const allocate = (amount: number, weights: ReadonlyArray<number>): number[] => {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (amount * w) / total);
  const parts = exact.map(Math.floor);
  let rest = amount - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (rest <= 0) break;
    parts[i] = parts[i]! + 1;
    rest -= 1;
  }
  return parts;
};

/** Prices `lines` with `promotions` (already selected: automatic ones and the codes given) and the tax rate. */
export const priceLines = (
  lines: ReadonlyArray<LineToPrice>,
  promotions: ReadonlyArray<Promotion>,
  taxRateBasisPoints: number,
  currency: string,
): PriceBreakdown => {
  const subtotals = lines.map((l) => l.variant.priceMinor * l.quantity);
  const discounts: AppliedDiscount[][] = lines.map(() => []);
  const left = (i: number) => subtotals[i]! - discounts[i]!.reduce((a, d) => a + d.amountMinor, 0);
  // Percentages first, one after another (in promotion id order) on what each line has left, so
  // stacked percentages compound and never take a line below 0; then fixed amounts on what remains.
  const percentages = promotions.filter((p) => p.kind === "percentage").sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const p of percentages) {
    lines.forEach((_, i) => {
      const amount = mulDivHalfUp(left(i), Math.min(p.value, 100), 100);
      if (amount > 0) discounts[i]!.push({ promotionId: p.id, code: p.code, reason: `${p.value}% off`, amountMinor: amount });
    });
  }
  for (const p of promotions.filter((p) => p.kind === "fixed_amount")) {
    const remaining = subtotals.map((_, i) => left(i));
    const amount = Math.min(p.value, remaining.reduce((a, b) => a + b, 0));
    allocate(amount, remaining).forEach((part, i) => {
      if (part > 0) discounts[i]!.push({ promotionId: p.id, code: p.code, reason: `${p.value} ${currency} off the order`, amountMinor: part });
    });
  }
  const priced: PricedLine[] = lines.map((l, i) => {
    const discountMinor = discounts[i]!.reduce((a, d) => a + d.amountMinor, 0);
    const taxable = subtotals[i]! - discountMinor;
    const taxMinor = mulDivHalfUp(taxable, taxRateBasisPoints, 10_000);
    return {
      variantId: l.variant.id,
      sku: l.variant.sku,
      quantity: l.quantity,
      unitPriceMinor: l.variant.priceMinor,
      subtotalMinor: subtotals[i]!,
      discounts: discounts[i]!,
      discountMinor,
      taxMinor,
      totalMinor: taxable + taxMinor,
    };
  });
  const sum = (f: (l: PricedLine) => number) => priced.reduce((a, l) => a + f(l), 0);
  return {
    lines: priced,
    subtotalMinor: sum((l) => l.subtotalMinor),
    discountMinor: sum((l) => l.discountMinor),
    taxMinor: sum((l) => l.taxMinor),
    totalMinor: sum((l) => l.totalMinor),
    currency,
  };
};
