/**
 * Server-authoritative carts: a customer's or a guest's (with a cart token shown once). Lines
 * keep only a quantity; every answer is priced from the catalog now (core/commerce/Pricing.ts)
 * with the store's automatic promotions and tax. Setting a line checks that the variant is
 * purchasable and that enough is available right now (409 otherwise); quantity 0 removes it. A
 * cart holds at most 100 lines (422 for another variant once full).
 */
import { Effect } from "effect";
import { ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import type { Cart, CartLine } from "./model/Cart.js";
import type { PriceBreakdown } from "./model/Pricing.js";
import type { Promotion } from "./model/Promotion.js";
import type { Store } from "./model/Store.js";
import type { Variant } from "./model/Variant.js";
import { loadOwnedCart, loadStore, type Shopper } from "./Access.js";
import { CartCheckedOut, InsufficientStock, PromotionInvalid, VariantUnavailable } from "./Errors.js";
import { priceLines, promotionActive } from "./Pricing.js";
import { withSpan } from "../kernel/Span.js";
import { independentReads } from "../kernel/IndependentReads.js";
import { CartId, type StoreId, type VariantId } from "./model/Ids.js";

/** Largest quantity of one line. */
export const maxLineQuantity = 1000;

/** Most lines (distinct variants) of one cart, as a product has at most 100 variants. */
export const maxCartLines = 100;

/** A cart with its server-side price. */
export interface PricedCart {
  readonly cart: Cart;
  readonly price: PriceBreakdown;
}

/** A new cart; `cartToken` only for a guest cart (shown once). */
export interface CreatedCart extends PricedCart {
  readonly cartToken: string | null;
}

/** The variants of `lines`, each purchasable in `store`, in line order; VariantUnavailable otherwise. */
export const purchasableVariants = (store: Store, lines: ReadonlyArray<CartLine>) =>
  Effect.gen(function* () {
    const found = yield* (yield* CatalogRepository).findVariants(lines.map((l) => l.variantId));
    const byId = new Map(found.map((v) => [v.id, v]));
    const variants: Variant[] = [];
    for (const line of lines) {
      const v = byId.get(line.variantId);
      if (v === undefined || v.storeId !== store.id || v.status !== "active" || v.currency !== store.currency) {
        return yield* Effect.fail(new VariantUnavailable({ variantId: line.variantId }));
      }
      variants.push(v);
    }
    return variants;
  });

/** The promotions that apply now: the store's automatic ones and the given codes (each must be valid). */
export const applicablePromotions = (storeId: StoreId, codes: ReadonlyArray<string>, at: Date) =>
  Effect.gen(function* () {
    const found = yield* (yield* CatalogRepository).promotionsFor(storeId, codes);
    for (const code of codes) {
      const p = found.find((x) => x.code === code);
      if (p === undefined || !promotionActive(p, at)) return yield* Effect.fail(new PromotionInvalid({ code }));
    }
    const applicable: ReadonlyArray<Promotion> = found.filter(
      (p) => promotionActive(p, at) && (p.automatic || (p.code !== null && codes.includes(p.code))),
    );
    return applicable;
  });

/** Prices `lines` of `store` now. */
export const priceCartLines = (store: Store, lines: ReadonlyArray<CartLine>, codes: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const at = yield* now;
    const [variants, promotions] = yield* independentReads(purchasableVariants(store, lines), applicablePromotions(store.id, codes, at));
    const price = priceLines(
      lines.map((l, i) => ({ variant: variants[i]!, quantity: l.quantity })),
      promotions,
      store.taxRateBasisPoints,
      store.currency,
    );
    return { variants, promotions, price };
  });

const priced = (cart: Cart) =>
  Effect.gen(function* () {
    const carts = yield* CartsRepository;
    const [store, lines] = yield* independentReads(loadStore(cart.storeId), carts.linesOf(cart.id));
    const { price } = yield* priceCartLines(store, lines);
    // What the shopper is shown now is what checkout holds them to (a catalog change after it needs confirming).
    if (cart.seenSubtotalMinor !== price.subtotalMinor || cart.seenTotalMinor !== price.totalMinor) {
      yield* carts.recordSeenPrice(cart.id, price.subtotalMinor, price.totalMinor);
    }
    const result: PricedCart = { cart, price };
    return result;
  });

/** Command: a cart in a store, for the customer or (without one) a guest. */
export const createCart = (customerId: string | null, storeId: StoreId) =>
  Effect.gen(function* () {
    const store = yield* loadStore(storeId);
    const issued = customerId === null ? yield* (yield* CartTokens).issue : null;
    const at = yield* now;
    const cart: Cart = {
      id: CartId.make(yield* (yield* Ids).next),
      storeId: store.id,
      customerId,
      tokenHash: issued === null ? null : issued.hash,
      status: "open",
      version: 1,
      seenSubtotalMinor: 0,
      seenTotalMinor: 0,
      createdAt: at,
      updatedAt: at,
    };
    yield* (yield* CartsRepository).insertCart(cart);
    const created: CreatedCart = { cart, price: priceLines([], [], store.taxRateBasisPoints, store.currency), cartToken: issued === null ? null : issued.token };
    return created;
  }).pipe(withSpan("commerce.createCart"));

/** Query: the shopper's cart priced now. */
export const getCart = (shopper: Shopper, cartId: CartId) =>
  Effect.flatMap(loadOwnedCart(shopper, cartId), priced).pipe(withSpan("commerce.getCart"));

/** Command: add or replace a line (quantity 0 removes it); answers the cart priced now. */
export const setCartLine = (shopper: Shopper, cartId: CartId, input: { readonly variantId: VariantId; readonly quantity: number }) =>
  Effect.gen(function* () {
    const cart = yield* loadOwnedCart(shopper, cartId);
    if (cart.status !== "open") return yield* Effect.fail(new CartCheckedOut({ cartId }));
    if (!Number.isInteger(input.quantity) || input.quantity < 0 || input.quantity > maxLineQuantity) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "quantity", message: `an integer from 0 to ${maxLineQuantity}` }] }));
    }
    const carts = yield* CartsRepository;
    const at = yield* now;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The cart's row first, and only while it is open: a checkout that took the cart meanwhile
        // (or holds it now: this waits for its commit) wins, and nothing is written into its cart.
        if (!(yield* carts.touch(cartId, at))) return yield* Effect.fail(new CartCheckedOut({ cartId }));
        if (input.quantity === 0) {
          yield* carts.removeLine(cartId, input.variantId);
        } else {
          // Bounded (checkout prices and reserves every line in one transaction); counted under the cart's row.
          const lines = yield* carts.linesOf(cartId);
          if (lines.length >= maxCartLines && !lines.some((l) => l.variantId === input.variantId)) {
            return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "variant_id", message: `a cart holds at most ${maxCartLines} lines` }] }));
          }
          const store = yield* loadStore(cart.storeId);
          const line: CartLine = { storeId: cart.storeId, cartId, variantId: input.variantId, quantity: input.quantity, addedAt: at };
          yield* purchasableVariants(store, [line]);
          const stock = yield* (yield* InventoryRepository).stockOf([input.variantId]);
          const available = stock.reduce((a, s) => a + (s.onHand - s.reserved), 0);
          if (available < input.quantity) {
            return yield* Effect.fail(new InsufficientStock({ variantId: input.variantId, requested: input.quantity, available }));
          }
          yield* carts.putLine(line);
        }
      }),
    );
    const after = yield* carts.findCart(cartId);
    return yield* priced(after ?? cart);
  }).pipe(withSpan("commerce.setCartLine"));
