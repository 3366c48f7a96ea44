/**
 * The development carrier, both sides of the wire:
 *   - tracking (the CarrierTracking port): an in-memory parcel table; a number nobody set is
 *     `in_transit`; tests and demos move parcels with `setStatus`;
 *   - webhooks (the CarrierWebhookReceiver port): `Webhook-Signature: t=<unix seconds>,v1=<hex
 *     HMAC-SHA256 of "<t>.<raw body>">` under the carrier webhook secret (several `v1` while
 *     secrets rotate, compared in constant time), `t` within the tolerance (300 s) of now in both
 *     directions; the body is `{id, carrier, tracking_number, status, occurred_at}`;
 *   - signing: `signCarrierWebhook`, what the carrier (or a test) sends.
 * Without a configured secret every delivery is refused. Secrets never appear in errors.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Effect, Schema } from "effect";
import {
  CarrierWebhookRefused,
  type CarrierStatus,
  type CarrierTracking,
  type CarrierWebhookReceiver,
  type TrackingUpdate,
} from "../../../ports/commerce/Carriers.js";

/** The header carrying the signature. */
export const carrierSignatureHeader = "Webhook-Signature";

const hmacHex = (secret: string, timestamp: string, rawBody: string): string => createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");

/** The signature header of `rawBody` at `timestampSeconds`, one `v1` per secret. */
export const signCarrierWebhook = (secrets: string | ReadonlyArray<string>, rawBody: string, timestampSeconds: number): string => {
  const t = String(Math.floor(timestampSeconds));
  return [`t=${t}`, ...(typeof secrets === "string" ? [secrets] : secrets).map((secret) => `v1=${hmacHex(secret, t, rawBody)}`)].join(",");
};

// Text without a NUL character (Postgres text cannot hold one): such an event is unreadable, a 400.
const CarrierText = Schema.String.pipe(Schema.filter((s) => !s.includes("\u0000") || "must not contain a NUL character"));

const CarrierEvent = Schema.Struct({
  id: CarrierText.pipe(Schema.minLength(1), Schema.maxLength(255)),
  carrier: CarrierText.pipe(Schema.minLength(1), Schema.maxLength(100)),
  tracking_number: CarrierText.pipe(Schema.minLength(1), Schema.maxLength(100)),
  status: Schema.Literal("in_transit", "out_for_delivery", "delivered", "exception"),
  occurred_at: Schema.Date,
});
const decodeEvent = Schema.decodeUnknown(Schema.parseJson(CarrierEvent));

/** Options of the webhook receiver. */
export interface CarrierWebhookOptions {
  readonly secrets: ReadonlyArray<string>;
  readonly toleranceSeconds?: number;
}

/** Builds the HMAC webhook receiver. */
export const makeHmacCarrierWebhookReceiver = (options: CarrierWebhookOptions): CarrierWebhookReceiver => {
  const tolerance = options.toleranceSeconds ?? 300;
  return {
    verify: ({ rawBody, signatureHeader, now }) =>
      Effect.gen(function* () {
        const refuse = (detail: string) => Effect.fail(new CarrierWebhookRefused({ detail }));
        if (options.secrets.length === 0) return yield* refuse("No carrier webhook secret is configured.");
        let timestamp: string | null = null;
        const signatures: Buffer[] = [];
        for (const part of (signatureHeader ?? "").split(",")) {
          const at = part.indexOf("=");
          const key = part.slice(0, at).trim();
          const value = part.slice(at + 1).trim();
          if (key === "t" && timestamp === null && /^\d{1,12}$/.test(value)) timestamp = value;
          else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, "hex"));
        }
        if (timestamp === null || signatures.length === 0) return yield* refuse("The signature header is missing or malformed.");
        const t = timestamp;
        const valid = options.secrets.some((secret) => {
          const expected = Buffer.from(hmacHex(secret, t, rawBody), "hex");
          return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
        });
        if (!valid) return yield* refuse("The signature does not verify.");
        if (Math.abs(now.getTime() / 1000 - Number(t)) > tolerance) return yield* refuse("The timestamp is outside the tolerance.");
        const event = yield* decodeEvent(rawBody).pipe(Effect.mapError(() => new CarrierWebhookRefused({ detail: "The body is not a carrier event." })));
        const update: TrackingUpdate = {
          eventId: event.id,
          carrier: event.carrier,
          trackingNumber: event.tracking_number,
          status: event.status,
          occurredAt: event.occurred_at,
        };
        return update;
      }),
  };
};

/** The sandbox carrier's tracking table. */
export interface SandboxCarrier extends CarrierTracking {
  /** Moves a parcel (what the carrier's scanners would do). */
  readonly setStatus: (carrier: string, trackingNumber: string, status: CarrierStatus) => void;
}

/** Builds a sandbox carrier. */
export const makeSandboxCarrier = (): SandboxCarrier => {
  const parcels = new Map<string, { status: CarrierStatus; occurredAt: Date }>();
  const key = (carrier: string, trackingNumber: string) => `${carrier}\n${trackingNumber}`;
  return {
    setStatus: (carrier, trackingNumber, status) => void parcels.set(key(carrier, trackingNumber), { status, occurredAt: new Date() }),
    track: (carrier, trackingNumber) => Effect.sync(() => parcels.get(key(carrier, trackingNumber)) ?? { status: "in_transit" as const, occurredAt: new Date() }),
  };
};
