/**
 * Sends one signed merchant webhook (outgoing HTTP). The adapter signs `body` with each of the
 * endpoint's live secrets (`Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 * one `v1=` per secret, the current one first, during a rotation's overlap) and
 * sets `Webhook-Id` to the event id so receivers can deduplicate. Never called inside a
 * database transaction; any failure to get an answer is reported, never raised.
 */
import { Context, Effect } from "effect";

/** What happened to one POST. */
export interface SendResult {
  /** True for a 2xx answer. */
  readonly ok: boolean;
  /** The HTTP status, null when no answer came. */
  readonly statusCode: number | null;
  /** A one-line reason for a failure (never the secret or the body). */
  readonly error: string | null;
}

/** The outgoing side of merchant webhooks. */
export interface MerchantWebhookSender {
  readonly send: (req: {
    readonly url: string;
    /** The live secrets, current first (at least one). */
    readonly secrets: ReadonlyArray<string>;
    readonly eventId: string;
    readonly body: string;
    readonly timestampSeconds: number;
  }) => Effect.Effect<SendResult>;
}
export const MerchantWebhookSender = Context.GenericTag<MerchantWebhookSender>("domainkit/payments/MerchantWebhookSender");
