/**
 * Contract kit for the e-commerce CartsRepository: a line is added or replaced per variant (one
 * line per variant, quantity replaced) and listed oldest first; a guest cart is found by its token
 * digest only; a cart is checked out once (the conditional change answers false the second time,
 * also when checkouts race on separate connections); retention deletes only carts in the given
 * status last changed before the cut-off, with their lines, at most the limit.
 */
import { Effect } from "effect";
import type { Cart } from "../../../core/commerce/model/Cart.js";
import { CartsRepository } from "../../../ports/commerce/CartsRepository.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, seedStore, uid, variantRecord } from "./fixtures.js";

/** The ports this kit needs. */
export type CartsKitPorts = CartsRepository | StoresRepository | CatalogRepository;

const carts = <A>(f: (r: CartsRepository) => Effect.Effect<A>) => Effect.flatMap(CartsRepository, f);

/** Cart `n` of store 1: a customer's, or a guest's with a token digest. */
const cart = (n: number, options: { readonly guestTokenHash?: string; readonly updatedAt?: Date } = {}): Cart => ({
  id: kitId.cart(n),
  storeId: kitId.store(1),
  customerId: options.guestTokenHash === undefined ? uid("user", 2) : null,
  tokenHash: options.guestTokenHash ?? null,
  status: "open",
  version: 1,
  seenSubtotalMinor: null,
  seenTotalMinor: null,
  createdAt: at(0),
  updatedAt: options.updatedAt ?? at(0),
});

/** Store 1 with two variants. */
const seed = Effect.zipRight(seedStore(1), Effect.flatMap(CatalogRepository, (r) => r.insertVariant(variantRecord(2))));

const line = (cartN: number, variantN: number, quantity: number, addedAt: number) =>
  carts((r) => r.putLine({ storeId: kitId.store(1), cartId: kitId.cart(cartN), variantId: kitId.var(variantN), quantity, addedAt: at(addedAt) }));

const linesOf = (cartN: number) => Effect.map(carts((r) => r.linesOf(kitId.cart(cartN))), (ls) => ls.map((l) => [l.variantId, l.quantity]));

/** The cases of the carts kit. */
export const cartsCases: ReadonlyArray<KitCase<CartsKitPorts>> = [
  {
    name: "carts: one line per variant, its quantity replaced, listed oldest first; a removed line is gone",
    run: async (t, run) => {
      await run(seed);
      await run(carts((r) => r.insertCart(cart(1))));
      await run(line(1, 2, 1, 1));
      await run(line(1, 1, 2, 2));
      await run(line(1, 2, 5, 3));
      t.same(await run(linesOf(1)), [[kitId.var(2), 5], [kitId.var(1), 2]], "replaced in place, oldest first");
      await run(carts((r) => r.removeLine(kitId.cart(1), kitId.var(2))));
      t.same(await run(linesOf(1)), [[kitId.var(1), 2]]);
    },
  },
  {
    name: "carts: a guest cart is found by its token digest only",
    run: async (t, run) => {
      await run(seed);
      await run(carts((r) => r.insertCart(cart(1, { guestTokenHash: "digest-one" }))));
      await run(carts((r) => r.insertCart(cart(2))));
      t.equal((await run(carts((r) => r.findCartByTokenHash("digest-one"))))?.id, kitId.cart(1));
      t.equal(await run(carts((r) => r.findCartByTokenHash("digest-two"))), null);
      t.same(await run(carts((r) => r.findCart(kitId.cart(2)))), cart(2), "a cart reads back as written");
    },
  },
  {
    name: "carts: a cart is checked out once",
    run: async (t, run) => {
      await run(seed);
      await run(carts((r) => r.insertCart(cart(1))));
      t.ok(await run(carts((r) => r.markCheckedOut(kitId.cart(1), at(5)))));
      t.notOk(await run(carts((r) => r.markCheckedOut(kitId.cart(1), at(6)))), "not twice");
      t.equal((await run(carts((r) => r.findCart(kitId.cart(1)))))?.status, "checked_out");
    },
  },
  {
    name: "carts: ten concurrent checkouts of one cart: exactly one moves it",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(seed);
      await run(carts((r) => r.insertCart(cart(1))));
      await run(warmUp(10, carts((r) => r.findCart(kitId.cart(1)))));
      const results = await run(Effect.all(Array.from({ length: 10 }, (_, i) => carts((r) => r.markCheckedOut(kitId.cart(1), at(10 + i)))), { concurrency: "unbounded" }));
      t.equal(results.filter(Boolean).length, 1);
    },
  },
  {
    name: "carts: retention deletes only carts in the status last changed before the cut-off, with their lines, at most the limit",
    run: async (t, run) => {
      await run(seed);
      for (const n of [1, 2, 3]) await run(carts((r) => r.insertCart(cart(n, { updatedAt: at(n) }))));
      await run(carts((r) => r.insertCart(cart(4, { updatedAt: at(100) }))));
      await run(carts((r) => r.insertCart(cart(5, { updatedAt: at(1) }))));
      await run(carts((r) => r.markCheckedOut(kitId.cart(5), at(1))));
      await run(line(1, 1, 1, 1));
      t.equal(await run(carts((r) => r.deleteStale("open", at(50), 2))), 2, "at most the limit");
      t.equal(await run(carts((r) => r.deleteStale("open", at(50), 10))), 1, "then the rest before the cut-off");
      const left = await run(Effect.all([1, 2, 3, 4, 5].map((n) => carts((r) => r.findCart(kitId.cart(n))))));
      t.same(left.map((c) => c?.id ?? null), [null, null, null, kitId.cart(4), kitId.cart(5)], "a recent cart and a checked-out one stay");
      t.same(await run(linesOf(1)), [], "a deleted cart's lines are gone");
    },
  },
];

/** Runs the carts kit against the adapter `options.factory` makes. */
export const cartsRepositorySuite = (options: SuiteOptions<CartsKitPorts>): Promise<unknown> => runCases(options, cartsCases);
