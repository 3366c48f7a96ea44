/** Guest cart tokens: issued as random bearer strings, stored only as digests. */
import { Context, type Effect } from "effect";

export interface CartTokens {
  /** A fresh token (shown once) and its digest (stored). */
  readonly issue: Effect.Effect<{ readonly token: string; readonly hash: string }>;
  /** The digest of a presented token. */
  readonly hash: (token: string) => string;
  /** Whether a presented token is the one `digest` was stored for, compared in constant time (false for a digest of another length). */
  readonly matches: (token: string, digest: string) => boolean;
}
export const CartTokens = Context.GenericTag<CartTokens>("domainkit/commerce/CartTokens");
