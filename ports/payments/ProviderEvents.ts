/**
 * The verified provider webhook inbox (spec: WebhookInbox). `ProviderWebhookReceiver` is the
 * provider-specific edge: it checks the signature over the raw body and the timestamp, then
 * reads the provider's payload into a `ProviderEvent`; a rejected delivery is stored nowhere.
 * `ProviderEventsInbox` stores each verified event once (its provider event id is UNIQUE) with
 * the outcome of applying it, and finds the objects an event names by our stable references.
 */
import { Context, Effect } from "effect";
import type { PaymentAttempt } from "../../core/payments/model/PaymentAttempt.js";
import type { Refund } from "../../core/payments/model/Refund.js";
import type { ProviderEvent, StoredProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import type { WebhookRejected } from "../../core/payments/model/ProviderErrors.js";

/** Verifies and reads one provider webhook delivery. */
export interface ProviderWebhookReceiver {
  /** The event of a delivery whose signature and timestamp hold at `now`; WebhookRejected otherwise. */
  readonly open: (delivery: {
    readonly rawBody: string;
    readonly signatureHeader: string | undefined;
    readonly now: Date;
  }) => Effect.Effect<ProviderEvent, WebhookRejected>;
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
}
export const ProviderEventsInbox = Context.GenericTag<ProviderEventsInbox>("domainkit/payments/ProviderEventsInbox");
