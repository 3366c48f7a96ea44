/**
 * Principal and authorization context. The library takes the principal from the host: the
 * reference server derives it from a verified JWT (users), an API key (merchants) or a payment
 * intent's client secret (customers) or a guest cart token (e-commerce guests).
 */
import { Context } from "effect";

/** Who is calling. */
export type Principal =
  /** `authTime`: when the user last signed in (the token's `auth_time`, Unix seconds), when the token says. */
  | { readonly kind: "user"; readonly userId: string; readonly authTime?: number }
  | {
      readonly kind: "merchant";
      readonly merchantId: string;
      readonly keyId: string;
      readonly scopes: ReadonlyArray<string>;
    }
  | { readonly kind: "system"; readonly name: string }
  /** A customer holding one payment intent's client secret: may confirm and read that intent only. */
  | { readonly kind: "client"; readonly intentId: string; readonly merchantId: string }
  /** A guest shopper holding one cart's token (e-commerce): may reach that cart and its order only. */
  | { readonly kind: "guest"; readonly cartId: string; readonly cartToken: string };

/** The principal of the request or job being served. */
export const CurrentPrincipal = Context.GenericTag<Principal>("domainkit/CurrentPrincipal");

/** Idempotency keys and rate limits are scoped to this string. */
export const principalScope = (p: Principal): string => {
  switch (p.kind) {
    case "user":
      return `user:${p.userId}`;
    case "merchant":
      return `merchant:${p.merchantId}`;
    case "client":
      return `client:${p.intentId}`;
    case "system":
      return `system:${p.name}`;
    case "guest":
      return `guest:${p.cartId}`;
  }
};
