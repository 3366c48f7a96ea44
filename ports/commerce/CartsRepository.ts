/** Server-authoritative carts and their lines (quantities only). */
import { Context, type Effect } from "effect";
import type { Cart, CartLine } from "../../core/commerce/model/Cart.js";

export interface CartsRepository {
  readonly insertCart: (cart: Cart) => Effect.Effect<void>;
  readonly findCart: (id: string) => Effect.Effect<Cart | null>;
  /** The guest cart whose token has this digest (unique). */
  readonly findCartByTokenHash: (tokenHash: string) => Effect.Effect<Cart | null>;
  /** Adds or replaces the line of `line.variantId`. */
  readonly putLine: (line: CartLine) => Effect.Effect<void>;
  readonly removeLine: (cartId: string, variantId: string) => Effect.Effect<void>;
  /** The lines, oldest first. */
  readonly linesOf: (cartId: string) => Effect.Effect<ReadonlyArray<CartLine>>;
  /** open → checked_out if still open; false when it was not. */
  readonly markCheckedOut: (cartId: string, now: Date) => Effect.Effect<boolean>;
  /** Hard-deletes (with their lines) carts in `status` last changed before `before`, at most `limit`; how many. */
  readonly deleteStale: (status: "open" | "checked_out", before: Date, limit: number) => Effect.Effect<number>;
  /** Bumps an open cart's version and updated_at (taking its row first in a transaction); false when it is not open (checked out). */
  readonly touch: (cartId: string, now: Date) => Effect.Effect<boolean>;
  /** Records the subtotal and total the cart's shopper was just shown (not a change of the cart: no version). */
  readonly recordSeenPrice: (cartId: string, subtotalMinor: number, totalMinor: number) => Effect.Effect<void>;
}
export const CartsRepository = Context.GenericTag<CartsRepository>("domainkit/commerce/CartsRepository");
