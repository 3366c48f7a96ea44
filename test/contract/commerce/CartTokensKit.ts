/**
 * Contract kit for the e-commerce CartTokens port: every issued token is new; its digest is what
 * `hash` answers for the presented token (so a stored digest finds the cart), differs from the
 * token itself (the token is never stored), and differs between tokens; `matches` accepts a token
 * only against its own digest.
 */
import { Effect } from "effect";
import { CartTokens } from "../../../ports/commerce/CartTokens.js";
import { runCases, type KitCase, type SuiteOptions } from "../Kit.js";

/** The ports this kit needs. */
export type CartTokensKitPorts = CartTokens;

/** The cases of the cart tokens kit. */
export const cartTokensCases: ReadonlyArray<KitCase<CartTokensKitPorts>> = [
  {
    name: "cart tokens: each issue is a new token whose digest is what hash answers for it, never the token itself",
    run: async (t, run) => {
      const issued = await run(Effect.flatMap(CartTokens, (tokens) => Effect.all(Array.from({ length: 20 }, () => tokens.issue))));
      t.equal(new Set(issued.map((i) => i.token)).size, 20, "tokens are never repeated");
      t.equal(new Set(issued.map((i) => i.hash)).size, 20, "nor their digests");
      const rehashed = await run(Effect.map(CartTokens, (tokens) => issued.map((i) => tokens.hash(i.token))));
      t.same(rehashed, issued.map((i) => i.hash), "a presented token hashes to its stored digest");
      t.notOk(issued.some((i) => i.hash.includes(i.token) || i.token.includes(i.hash)), "the digest does not reveal the token");
      t.not(await run(Effect.map(CartTokens, (tokens) => tokens.hash(`${issued[0]!.token}x`))), issued[0]!.hash, "another token has another digest");
    },
  },
  {
    name: "cart tokens: a presented token matches only its own stored digest, and a digest of another length is no match (never an error)",
    run: async (t, run) => {
      const [a, b] = await run(Effect.flatMap(CartTokens, (tokens) => Effect.all([tokens.issue, tokens.issue])));
      const matches = (token: string, digest: string) => run(Effect.map(CartTokens, (tokens) => tokens.matches(token, digest)));
      t.equal(await matches(a!.token, a!.hash), true, "its own digest");
      t.equal(await matches(b!.token, a!.hash), false, "another cart's digest");
      t.equal(await matches(a!.token, a!.hash.slice(0, -2)), false, "a shorter digest");
      t.equal(await matches(a!.token, `${a!.hash}00`), false, "a longer digest");
      t.equal(await matches(a!.token, ""), false, "no digest");
    },
  },
];

/** Runs the cart tokens kit against the adapter `options.factory` makes. */
export const cartTokensSuite = (options: SuiteOptions<CartTokensKitPorts>): Promise<unknown> => runCases(options, cartTokensCases);
