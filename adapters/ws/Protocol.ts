/**
 * The realtime wire protocol (conventions.md, Realtime): what a client may send, what the
 * server answers, and the channel name format `<kind>:<id>`.
 */
import { Either, Schema } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";

/** `{"type":"subscribe","channel":"<kind>:<id>","since":<offset?>}` */
export const SubscribeMessage = Schema.Struct({
  type: Schema.Literal("subscribe"),
  channel: Schema.String,
  since: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.nonNegative()))),
});

/** `{"type":"unsubscribe","channel":"<kind>:<id>"}` */
export const UnsubscribeMessage = Schema.Struct({
  type: Schema.Literal("unsubscribe"),
  channel: Schema.String,
});

/** Every message a client may send. */
export const ClientMessage = Schema.Union(SubscribeMessage, UnsubscribeMessage);
export type ClientMessage = typeof ClientMessage.Type;

const decodeClientMessage = Schema.decodeUnknownEither(ClientMessage);

/** Why a frame is not a client message, with the code HTTP gives the same mistake. */
export interface RefusedMessage {
  readonly code: "malformed_json" | "validation_failed";
  readonly detail: string;
}

/** Reads one text frame: the client message, or why it is none (not JSON; JSON of another shape). */
export const readClientMessage = (text: string): Either.Either<ClientMessage, RefusedMessage> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return Either.left({ code: "malformed_json", detail: "a message must be JSON" });
  }
  return Either.mapLeft(decodeClientMessage(json), () => ({
    code: "validation_failed" as const,
    detail: 'expected {"type":"subscribe","channel":"<kind>:<id>","since"?:<offset>} or {"type":"unsubscribe","channel":"<kind>:<id>"}',
  }));
};

/** Parses one text frame; null when it is not a valid client message. */
export const parseClientMessage = (text: string): ClientMessage | null => Either.getOrNull(readClientMessage(text));

/** Why a subscription ended: the client asked, or the caller lost access to the channel. */
export const unsubscribeReasons = ["client", "access_revoked"] as const;
export type UnsubscribeReason = (typeof unsubscribeReasons)[number];

/**
 * The codes of `error` messages: HTTP's codes for the same mistakes (`malformed_json`,
 * `validation_failed`, `not_found`, `rate_limited`, `service_unavailable`), and one of realtime's own.
 */
export const realtimeErrorCodes = ["malformed_json", "validation_failed", "not_found", "too_many_subscriptions", "rate_limited", "service_unavailable"] as const;
export type RealtimeErrorCode = (typeof realtimeErrorCodes)[number];

/** The `type` of every message the server sends. */
export const serverMessageTypes = ["subscribed", "event", "resync", "unsubscribed", "error"] as const;

/** Every message the server sends. */
export type ServerMessage =
  | { readonly type: "subscribed"; readonly channel: string; readonly offset: number }
  | { readonly type: "event"; readonly channel: string; readonly offset: number; readonly event: EventEnvelope }
  /** Events after the client's offset are no longer retained: reload, then continue from `offset`. */
  | { readonly type: "resync"; readonly channel: string; readonly offset: number }
  | { readonly type: "unsubscribed"; readonly channel: string; readonly reason: UnsubscribeReason }
  | {
      readonly type: "error";
      readonly channel?: string;
      readonly code: RealtimeErrorCode;
      readonly detail?: string;
      /** `rate_limited` only: seconds to wait before sending again (HTTP's `Retry-After`). */
      readonly retry_after?: number;
    };

/** A channel name split into the authorizer kind and the id it is asked about. */
export interface ChannelName {
  readonly kind: string;
  readonly id: string;
}

/** Splits `<kind>:<id>` at the first colon; null when either part is empty or too long. */
export const parseChannel = (channel: string): ChannelName | null => {
  const colon = channel.indexOf(":");
  if (colon <= 0 || colon === channel.length - 1 || channel.length > 300) return null;
  return { kind: channel.slice(0, colon), id: channel.slice(colon + 1) };
};

/**
 * Close code for a connection whose token no longer stands: 4000 + HTTP 401, with the reason
 * `token_revoked` (epoch bumped) or `token_expired` (its `exp` passed; reconnect with a fresh token).
 */
export const closeCodeRevoked = 4401;
/** Close code when the server shuts down (1001 "going away", reason `server_shutdown`): reconnect elsewhere or later. */
export const closeCodeGoingAway = 1001;
/**
 * Close code for a client that does not read its frames (1013 "try again later", reason
 * `slow_consumer`): its unsent frames passed the bound. Reconnect and resubscribe with `since`.
 */
export const closeCodeSlowConsumer = 1013;

/**
 * Every close code a client can see from the server, with the reasons sent. 1002, 1007 and 1009
 * are closed by the websocket library (ws) with its own reason text.
 */
export const realtimeCloseCodes: ReadonlyArray<{ readonly code: number; readonly reasons: ReadonlyArray<string> }> = [
  { code: closeCodeGoingAway, reasons: ["server_shutdown"] },
  { code: 1002, reasons: [] }, // a frame that breaks the websocket protocol (e.g. unmasked)
  { code: 1007, reasons: [] }, // a text frame that is not UTF-8
  { code: 1009, reasons: [] }, // a frame over the payload bound
  { code: closeCodeSlowConsumer, reasons: ["slow_consumer"] },
  { code: closeCodeRevoked, reasons: ["token_revoked", "token_expired"] },
];

/** Every refusal of the upgrade request: an HTTP status with a problem+json `code`, before any websocket exists. */
export const realtimeUpgradeRefusals: ReadonlyArray<{ readonly status: number; readonly code: string }> = [
  { status: 401, code: "authentication_required" },
  { status: 401, code: "invalid_token" },
  { status: 401, code: "token_expired" },
  { status: 401, code: "token_revoked" },
  { status: 404, code: "not_found" },
  { status: 429, code: "rate_limited" },
  { status: 503, code: "service_unavailable" },
];
