/**
 * Principal and authorization context. The library takes the principal from the host: the
 * reference server derives it from a verified JWT (users) or an API key (merchants).
 */
import { Context } from "effect";

/** Who is calling. */
export type Principal =
  | { readonly kind: "user"; readonly userId: string }
  | {
      readonly kind: "merchant";
      readonly merchantId: string;
      readonly keyId: string;
      readonly scopes: ReadonlyArray<string>;
    }
  | { readonly kind: "system"; readonly name: string };

/** The principal of the request or job being served. */
export const CurrentPrincipal = Context.GenericTag<Principal>("domainkit/CurrentPrincipal");

/** Idempotency keys and rate limits are scoped to this string. */
export const principalScope = (p: Principal): string =>
  p.kind === "user" ? `user:${p.userId}` : p.kind === "merchant" ? `merchant:${p.merchantId}` : `system:${p.name}`;
