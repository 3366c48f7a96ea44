/**
 * The verified provider webhook inbox (spec: WebhookInbox). `ProviderWebhookReceiver` is the
 * provider-specific edge: it checks the signature over the raw body and the timestamp, then
 * reads the provider's payload into a `ProviderEvent`; a rejected delivery is stored nowhere.
 * `ProviderEventsInbox` stores each verified event once (its provider event id is UNIQUE) with
 * the outcome of applying it, and finds the objects an event names by our stable references.
 * Rows stored before the inbox kept only what the core reads hold the provider's whole payload;
 * the receiver's `decode` reads such a payload again so the core can minimize it (once).
 */
import { Context, Effect } from "effect";
import type { PaymentAttempt } from "../../core/payments/model/PaymentAttempt.js";
import type { Refund } from "../../core/payments/model/Refund.js";
import type { ProviderEvent, StoredProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import type { WebhookPayloadInvalid, WebhookRejected } from "../../core/payments/model/ProviderErrors.js";

/** Verifies and reads one provider webhook delivery. */
export interface ProviderWebhookReceiver {
  /** The event of a delivery whose signature and timestamp hold at `now`; WebhookRejected otherwise. */
  readonly open: (delivery: {
    readonly rawBody: string;
    readonly signatureHeader: string | undefined;
    readonly now: Date;
  }) => Effect.Effect<ProviderEvent, WebhookRejected>;
  /**
   * Reads a payload as this provider sends it (the parsed body, as inbox rows stored it before
   * they kept only what the core reads) into its event, checking no signature: decode only.
   */
  readonly decode: (payload: unknown) => Effect.Effect<ProviderEvent, WebhookPayloadInvalid>;
}
export const ProviderWebhookReceiver = Context.GenericTag<ProviderWebhookReceiver>("domainkit/payments/ProviderWebhookReceiver");

/** Storage of verified provider events (joins the open transaction). */
export interface ProviderEventsInbox {
  /** The stored event with this provider event id, or null. */
  readonly find: (providerEventId: string) => Effect.Effect<StoredProviderEvent | null>;
  /** Stores an event once; false when its provider event id is already stored (nothing changes). */
  readonly insert: (event: StoredProviderEvent) => Effect.Effect<boolean>;
  /** The attempt sent under authorization reference `reference`, or null. */
  readonly findAttemptByReference: (reference: string) => Effect.Effect<PaymentAttempt | null>;
  /** The refund sent under `reference`, or null. */
  readonly findRefundByReference: (reference: string) => Effect.Effect<Refund | null>;
  /** Up to `limit` rows whose payload is not marked minimized, with ids after `after` (null: from the first), by id. */
  readonly listUnminimized: (page: { readonly after: string | null; readonly limit: number }) => Effect.Effect<ReadonlyArray<UnminimizedProviderEvent>>;
  /** How many rows whose payload is not marked minimized have ids after `after` (null: all). */
  readonly countUnminimized: (after: string | null) => Effect.Effect<number>;
  /** Replaces an unminimized row's payload and marks it minimized at `at`; false when it was marked already. */
  readonly minimizePayload: (row: { readonly id: string; readonly payload: unknown; readonly at: Date }) => Effect.Effect<boolean>;
}

/** An inbox row stored before the inbox kept only what the core reads: its id and payload as stored. */
export interface UnminimizedProviderEvent {
  readonly id: string;
  readonly payload: unknown;
}
export const ProviderEventsInbox = Context.GenericTag<ProviderEventsInbox>("domainkit/payments/ProviderEventsInbox");
