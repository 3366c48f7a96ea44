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

/** Why a subscription ended. */
export type UnsubscribeReason = "client" | "access_revoked";

/** Every message the server sends. */
export type ServerMessage =
  | { readonly type: "subscribed"; readonly channel: string; readonly offset: number }
  | { readonly type: "event"; readonly channel: string; readonly offset: number; readonly event: EventEnvelope }
  /** Events after the client's offset are no longer retained: reload, then continue from `offset`. */
  | { readonly type: "resync"; readonly channel: string; readonly offset: number }
  | { readonly type: "unsubscribed"; readonly channel: string; readonly reason: UnsubscribeReason }
  | { readonly type: "error"; readonly channel?: string; readonly code: string; readonly detail?: string };

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
