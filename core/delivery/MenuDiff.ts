/**
 * The resolvable diff of spec rule 6 (a changed menu never charges the old price silently):
 * which quoted items changed price, went unavailable or disappeared since the quoted version.
 */
import type { MenuDiff } from "./Errors.js";
import type { MenuItemView } from "./model/MenuItem.js";

/**
 * The diff between what was quoted (`quotedVersion`, its items) and the menu now; null when
 * the quoted version is current and every requested item is available.
 */
export const menuDiff = (input: {
  readonly requestedItemIds: ReadonlyArray<string>;
  readonly quotedVersion: number;
  readonly quotedItems: ReadonlyArray<MenuItemView>;
  readonly currentVersion: number;
  readonly currentItems: ReadonlyArray<MenuItemView>;
  /** The restaurant's currency, in which both versions are priced. */
  readonly currency: string;
}): MenuDiff | null => {
  const quoted = new Map<string, MenuItemView>(input.quotedItems.map((item) => [item.id, item]));
  const current = new Map<string, MenuItemView>(input.currentItems.map((item) => [item.id, item]));
  const changed_prices: Array<MenuDiff["changed_prices"][number]> = [];
  const unavailable_items: string[] = [];
  const removed_items: string[] = [];
  for (const itemId of new Set(input.requestedItemIds)) {
    const now = current.get(itemId);
    if (now === undefined) {
      if (quoted.has(itemId)) removed_items.push(itemId);
      continue;
    }
    const then = quoted.get(itemId);
    if (then !== undefined && then.priceMinor !== now.priceMinor) {
      changed_prices.push({ item_id: itemId, quoted_price_minor: then.priceMinor, current_price_minor: now.priceMinor });
    }
    if (!now.available) unavailable_items.push(itemId);
  }
  const versionChanged = input.quotedVersion !== input.currentVersion;
  if (!versionChanged && unavailable_items.length === 0) return null;
  return { current_version: input.currentVersion, currency: input.currency, changed_prices, unavailable_items, removed_items };
};
