/**
 * Outgoing merchant webhooks over HTTP (Node's fetch). Each POST carries
 * `Webhook-Id: <event id>` (receivers dedupe by it; it never changes between attempts) and
 * `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, so a
 * receiver checks integrity, origin and freshness with `verifyMerchantWebhookSignature`.
 * Redirects are not followed and a slow receiver times out: both count as failed attempts.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import type { MerchantWebhookSender } from "../../../ports/payments/WebhookEndpointsSender.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** The signature header value for `body` sent at `timestampSeconds`. */
export const signMerchantWebhook = (secret: string, timestampSeconds: number, body: string): string =>
  `t=${timestampSeconds},v1=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`;

/**
 * What a merchant's receiver does: true when `header` signs `rawBody` with `secret` and its
 * timestamp is within `toleranceSeconds` of `nowSeconds` in either direction.
 */
export const verifyMerchantWebhookSignature = (input: {
  readonly secret: string;
  readonly header: string | undefined;
  readonly rawBody: string;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}): boolean => {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(input.header ?? "");
  if (match === null) return false;
  const t = Number(match[1]);
  if (Math.abs(input.nowSeconds - t) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signMerchantWebhook(input.secret, t, input.rawBody).slice(-64), "hex");
  const given = Buffer.from(match[2] as string, "hex");
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/** Options of the fetch sender. */
export interface FetchSenderOptions {
  /** Per-attempt timeout (default 10 s). */
  readonly timeoutMs?: number;
}

/** The MerchantWebhookSender port over fetch. */
export const makeFetchMerchantWebhookSender = (options: FetchSenderOptions = {}): MerchantWebhookSender => ({
  send: ({ url, secret, eventId, body, timestampSeconds }) =>
    Effect.promise(async () => {
      try {
        const response = await fetch(url, {
          method: "POST",
          redirect: "manual",
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
          headers: {
            "Content-Type": "application/json",
            "User-Agent": "domainkit-webhooks/1",
            "Webhook-Id": eventId,
            "Webhook-Signature": signMerchantWebhook(secret, timestampSeconds, body),
          },
          body,
        });
        // The answer's body is not needed; draining it frees the connection.
        await response.arrayBuffer().catch(() => undefined);
        const ok = response.status >= 200 && response.status < 300;
        return { ok, statusCode: response.status, error: ok ? null : `receiver answered ${response.status}` };
      } catch (error) {
        const name = error instanceof Error ? error.name : "Error";
        return { ok: false, statusCode: null, error: name === "TimeoutError" ? "timed out" : `no answer (${name})` };
      }
    }).pipe(withSpan("MerchantWebhookSender.send")),
});
