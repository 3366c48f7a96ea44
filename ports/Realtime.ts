/**
 * Realtime ports (conventions.md, Realtime): a durable per-channel log with offsets so a client
 * can recover with `since`, a bus that fans notices out across processes, and per-channel-kind
 * authorizers checked at subscribe time and again when access may have changed.
 */
import { Context, Effect } from "effect";
import type { EventEnvelope } from "../core/kernel/EventEnvelope.js";
import type { EventDataScrub } from "./Outbox.js";
import type { Principal } from "./Principal.js";

/** One event on one channel (`<kind>:<id>`), at a per-channel offset (1, 2, 3, ... with no gaps). */
export interface ChannelMessage {
  readonly channel: string;
  readonly offset: number;
  readonly event: EventEnvelope;
}

export interface ChannelLog {
  /** Appends the event to the channel at the next offset (committed order = offset order). */
  readonly append: (channel: string, event: EventEnvelope) => Effect.Effect<ChannelMessage>;
  /**
   * Appends several events to the channel at the next offsets, in order, as `append` would one
   * by one (one round trip per statement kind instead of per event). Optional.
   */
  readonly appendMany?: (channel: string, events: ReadonlyArray<EventEnvelope>) => Effect.Effect<ReadonlyArray<ChannelMessage>>;
  /**
   * Messages with offset > `since`, oldest first, at most `limit`. `resync` is true when some
   * of them are no longer retained, so the client must reload instead of catching up.
   */
  readonly readSince: (
    channel: string,
    since: number,
    limit: number,
  ) => Effect.Effect<{ readonly messages: ReadonlyArray<ChannelMessage>; readonly resync: boolean }>;
  /** The channel's newest offset, 0 when nothing was ever appended to it. */
  readonly head: (channel: string) => Effect.Effect<number>;
  /** Drops messages older than `before`, keeping each channel's newest; returns how many. */
  readonly trim: (before: Date) => Effect.Effect<number>;
  /**
   * Removes the scrub's fields from up to `limit` messages it reaches, appended before `before`
   * and still holding one of them; answers how many. Offsets stay (the message stays, without
   * them). Optional: without it nothing is scrubbed.
   */
  readonly scrubBefore?: (scrub: EventDataScrub, before: Date, limit: number) => Effect.Effect<number>;
}
export const ChannelLog = Context.GenericTag<ChannelLog>("domainkit/ChannelLog");

/** A notice carried between processes. */
export type RealtimeNotice =
  | { readonly type: "message"; readonly channel: string; readonly offset: number }
  | { readonly type: "access_changed"; readonly userId: string; readonly channel?: string }
  /** Notices may have been lost (the bus reconnected): re-read every channel log, recheck every access. */
  | { readonly type: "resume" };

export interface RealtimeBus {
  /**
   * Sends a notice to every process (LISTEN/NOTIFY on Postgres; on SQLite in-process, and through the file for a worker or command beside the server). Published
   * inside a transaction, it is delivered once that transaction commits, never after a rollback.
   */
  readonly publish: (notice: RealtimeNotice) => Effect.Effect<void>;
  /** Receives every notice published by any process, once, until the returned function is called. */
  readonly listen: (onNotice: (notice: RealtimeNotice) => void) => Effect.Effect<() => void>;
}
export const RealtimeBus = Context.GenericTag<RealtimeBus>("domainkit/RealtimeBus");

/** Decides whether a principal may subscribe to the channels of one kind (`project`, `order`, ...). */
export interface ChannelAuthorizer {
  readonly kind: string;
  readonly authorize: (principal: Principal, channelId: string) => Effect.Effect<boolean>;
  /**
   * Whether this kind's subscribers may see who acted (an envelope's `actor_id`, an account id).
   * Without it the realtime server sends `actor_id: null`: a channel's subscribers are often other
   * parties (a courier and a customer, a customer and the warehouse), who must not learn each
   * other's accounts.
   */
  readonly showsActor?: boolean;
}

/** The authorizers of every mounted module, by channel kind. */
export interface ChannelAuthorizers {
  readonly forKind: (kind: string) => ChannelAuthorizer | undefined;
}
export const ChannelAuthorizers = Context.GenericTag<ChannelAuthorizers>("domainkit/ChannelAuthorizers");
