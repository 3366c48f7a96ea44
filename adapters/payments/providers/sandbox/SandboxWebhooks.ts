/**
 * The sandbox's signed webhooks, both sides of the wire:
 *   - signing: `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 *     under PROVIDER_WEBHOOK_SECRET; several `v1` values may be sent while secrets rotate;
 *   - receiving (the ProviderWebhookReceiver port): the raw body must carry a `v1` matching one
 *     of our current secrets (compared in constant time) and `t` must be within the tolerance
 *     (300 s) of now in BOTH directions, so a captured delivery cannot be replayed later and a
 *     future-dated one is refused too; then the payload is read into a core ProviderEvent
 *     (`decodeSandboxEvent`, also the receiver's decode-only `decode`);
 *   - delivering: `deliverSandboxWebhook` posts one event to an endpoint, as the tests use it
 *     for duplicate, out-of-order and delayed deliveries.
 * Secrets never appear in errors or logs.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Effect, Schema } from "effect";
import type { ProviderEvent } from "../../../../core/payments/model/ProviderEvent.js";
import {
  WebhookPayloadInvalid,
  WebhookSignatureInvalid,
  WebhookTimestampOutOfTolerance,
} from "../../../../core/payments/Errors.js";
import type { ProviderWebhookReceiver } from "../../../../ports/payments/ProviderEvents.js";
import type { SandboxEvent } from "./SandboxProvider.js";

/** The header carrying the signature. */
export const webhookSignatureHeader = "Webhook-Signature";

/** The default timestamp tolerance, in seconds, each way. */
export const defaultWebhookToleranceSeconds = 300;

const hmacHex = (secret: string, timestamp: string, rawBody: string): string =>
  createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");

/** The signature header value of `rawBody` at `timestampSeconds`, one `v1` per secret. */
export const signWebhook = (secrets: string | ReadonlyArray<string>, rawBody: string, timestampSeconds: number): string => {
  const t = String(Math.floor(timestampSeconds));
  return [`t=${t}`, ...(typeof secrets === "string" ? [secrets] : secrets).map((secret) => `v1=${hmacHex(secret, t, rawBody)}`)].join(",");
};

const parseHeader = (header: string): { timestamp: string | null; signatures: ReadonlyArray<Buffer> } => {
  let timestamp: string | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t" && timestamp === null && /^\d{1,12}$/.test(value)) timestamp = value;
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  return { timestamp, signatures };
};

const PaymentData = Schema.Struct({
  object: Schema.Literal("payment"),
  reference: Schema.String,
  provider_payment_id: Schema.NullOr(Schema.String),
  status: Schema.Literal("authorized", "captured", "requires_action", "declined", "voided"),
  amount_minor: Schema.Int,
  captured_minor: Schema.Int,
  currency: Schema.String,
  decline_code: Schema.NullOr(Schema.String),
});
const RefundData = Schema.Struct({
  object: Schema.Literal("refund"),
  reference: Schema.String,
  status: Schema.Literal("succeeded", "failed"),
  amount_minor: Schema.Int,
  currency: Schema.String,
  failure_reason: Schema.NullOr(Schema.String),
});
const WireEvent = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)),
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  created: Schema.Int,
  data: Schema.Unknown,
});

const invalid = () => new WebhookPayloadInvalid({ detail: "The body is not a provider event." });

/** The event of a sandbox payload (the parsed body); decode only, no signature is checked. */
export const decodeSandboxEvent = (json: unknown): Effect.Effect<ProviderEvent, WebhookPayloadInvalid> =>
  Effect.gen(function* () {
    const wire = yield* Schema.decodeUnknown(WireEvent)(json).pipe(Effect.mapError(invalid));
    const object = (wire.data as { object?: unknown } | null)?.object;
    const base = { id: wire.id, type: wire.type, occurredAt: new Date(wire.created * 1000), payload: json };
    if (object === "payment" && wire.type.startsWith("payment.")) {
      const d = yield* Schema.decodeUnknown(PaymentData)(wire.data).pipe(Effect.mapError(invalid));
      return {
        ...base,
        data: {
          kind: "payment" as const,
          status: d.status,
          reference: d.reference,
          providerPaymentId: d.provider_payment_id,
          amountMinor: d.amount_minor,
          capturedMinor: d.captured_minor,
          currency: d.currency,
          declineCode: d.decline_code,
        },
      };
    }
    if (object === "refund" && wire.type.startsWith("refund.")) {
      const d = yield* Schema.decodeUnknown(RefundData)(wire.data).pipe(Effect.mapError(invalid));
      return {
        ...base,
        data: { kind: "refund" as const, status: d.status, reference: d.reference, amountMinor: d.amount_minor, currency: d.currency, failureReason: d.failure_reason },
      };
    }
    return { ...base, data: { kind: "other" as const } };
  });

const toProviderEvent = (rawBody: string): Effect.Effect<ProviderEvent, WebhookPayloadInvalid> =>
  Effect.try({ try: () => JSON.parse(rawBody) as unknown, catch: invalid }).pipe(Effect.flatMap(decodeSandboxEvent));

/** The receiver of sandbox webhooks signed with any of `secrets` (several while rotating; none refuses all). */
export const makeSandboxWebhookReceiver = (options: {
  readonly secrets: ReadonlyArray<string>;
  readonly toleranceSeconds?: number;
}): ProviderWebhookReceiver => {
  // With no secret configured every delivery is refused (fails closed), never accepted unsigned.
  const secrets = options.secrets.filter((s) => s.length > 0);
  const tolerance = options.toleranceSeconds ?? defaultWebhookToleranceSeconds;
  return {
    open: ({ rawBody, signatureHeader, now }) =>
      Effect.gen(function* () {
        const { timestamp, signatures } = parseHeader(signatureHeader ?? "");
        if (secrets.length === 0) {
          return yield* Effect.fail(new WebhookSignatureInvalid({ detail: "No provider webhook secret is configured." }));
        }
        if (timestamp === null || signatures.length === 0) {
          return yield* Effect.fail(new WebhookSignatureInvalid({ detail: `The ${webhookSignatureHeader} header is missing or malformed.` }));
        }
        let valid = false;
        for (const secret of secrets) {
          const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), "hex");
          // Every candidate is compared in constant time; no early exit on a partial match.
          for (const signature of signatures) valid = timingSafeEqual(expected, signature) || valid;
        }
        if (!valid) return yield* Effect.fail(new WebhookSignatureInvalid({ detail: "No signature matches the raw body." }));
        if (Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) > tolerance) {
          return yield* Effect.fail(
            new WebhookTimestampOutOfTolerance({ detail: `The signed timestamp is more than ${tolerance} s from now.` }),
          );
        }
        return yield* toProviderEvent(rawBody);
      }),
    decode: decodeSandboxEvent,
  };
};

/** The body the sandbox sends for `event`. */
export const sandboxWebhookBody = (event: SandboxEvent): string => JSON.stringify(event);

/**
 * Posts `event` to `url` signed with `secret` at `timestampSeconds` (default now), the way the
 * sandbox delivers webhooks; `signature` overrides the header (tampering tests).
 */
export const deliverSandboxWebhook = async (
  url: string,
  event: SandboxEvent,
  options: { readonly secret: string | ReadonlyArray<string>; readonly timestampSeconds?: number; readonly signature?: string; readonly body?: string },
): Promise<{ readonly status: number; readonly body: Record<string, unknown> }> => {
  const body = options.body ?? sandboxWebhookBody(event);
  const signature = options.signature ?? signWebhook(options.secret, body, options.timestampSeconds ?? Date.now() / 1000);
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", [webhookSignatureHeader]: signature },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
};
