/**
 * Client secrets of payment intents: a random secret per intent, returned once at creation and
 * stored only as a hash; verification compares in constant time. The secret grants a limited,
 * read-only view of that one intent.
 */
import { Context, Effect } from "effect";

/** Client secret storage and verification. */
export interface ClientSecrets {
  /** Mints the client secret of `intentId` (once per intent) and answers it. */
  readonly issue: (req: { readonly intentId: string; readonly merchantId: string; readonly now: Date }) => Effect.Effect<string>;
  /**
   * Replaces the client secret of `intentId` (of `merchantId`) with a new one and answers it (a
   * replayed creation, whose stored answer holds no secret); the previous secret stops working.
   * Answers null when the intent has no secret of that merchant.
   */
  readonly reissue: (req: { readonly intentId: string; readonly merchantId: string }) => Effect.Effect<string | null>;
  /** True when `secret` is the client secret of `intentId`. */
  readonly verify: (intentId: string, secret: string) => Effect.Effect<boolean>;
}
export const ClientSecrets = Context.GenericTag<ClientSecrets>("domainkit/payments/ClientSecrets");
