/**
 * The realtime consumer: appends each event to the channels it belongs to (in the consumer's
 * transaction, so offsets commit with the inbox record) and, once committed, tells every
 * process through the RealtimeBus so their websocket subscribers read the new messages. The
 * host's consumer routes with the modules' pure mappings (no I/O); a module whose routing must
 * read state (who may see what changed) gives its own consumer with `channelsForEffect`.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { ChannelLog, RealtimeBus, type ChannelMessage } from "../../ports/Realtime.js";
import type { Consumer } from "./Consumer.js";

/** Which channels (`<kind>:<id>`) an event goes to; modules supply it. Empty: not a realtime event. */
export type ChannelsFor = (event: EventEnvelope) => ReadonlyArray<string>;

/**
 * Which channels an event goes to when routing must read state (e.g. who may see what the event
 * is about). It runs in the consumer's transaction, once per event; a module that needs it gives
 * its own consumer (`handles` says, without I/O, which events it routes).
 */
export type ChannelsForEffect<R> = (event: EventEnvelope) => Effect.Effect<ReadonlyArray<string>, unknown, R>;

/** The events of each channel, in event order (a channel a mapping lists twice gets an event once). */
const groupByChannel = (events: ReadonlyArray<EventEnvelope>, channelsOf: (event: EventEnvelope, index: number) => ReadonlyArray<string>) => {
  const byChannel = new Map<string, EventEnvelope[]>();
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    for (const channel of new Set(channelsOf(event, index))) {
      const list = byChannel.get(channel);
      if (list === undefined) byChannel.set(channel, [event]);
      else list.push(event);
    }
  }
  return byChannel;
};

/**
 * Appends each channel's events, the channels in sorted order, and answers the after-commit step
 * announcing each channel once, at its newest offset: a subscriber reads everything up to it.
 * Published after commit, so a notice never points at an offset that was rolled back.
 */
const appendAndAnnounce = (byChannel: ReadonlyMap<string, ReadonlyArray<EventEnvelope>>) =>
  Effect.gen(function* () {
    const log = yield* ChannelLog;
    const bus = yield* RealtimeBus;
    const newest = new Map<string, number>();
    // Channels in one order for every worker: each append locks its channel's head until commit,
    // and two relays appending overlapping channels of their batches in first-seen order could each
    // wait for the other's head (a deadlock; the inbox's claims had one on CI).
    for (const channel of [...byChannel.keys()].sort()) {
      const list = byChannel.get(channel)!;
      const appended: ReadonlyArray<ChannelMessage> =
        list.length > 1 && log.appendMany !== undefined
          ? yield* log.appendMany(channel, list)
          : yield* Effect.forEach(list, (event) => log.append(channel, event));
      const last = appended[appended.length - 1];
      if (last !== undefined) newest.set(channel, last.offset);
    }
    return Effect.forEach(newest, ([channel, offset]) => bus.publish({ type: "message", channel, offset }), { discard: true });
  });

/** Routes `events` with a pure mapping (no I/O besides the appends). */
const routePure = (channelsFor: ChannelsFor, events: ReadonlyArray<EventEnvelope>) => appendAndAnnounce(groupByChannel(events, channelsFor));

/** Routes `events` with an effectful mapping, run for each event in turn inside the transaction. */
const routeEffectful = <R>(channelsFor: ChannelsForEffect<R>, events: ReadonlyArray<EventEnvelope>) =>
  Effect.flatMap(Effect.forEach(events, channelsFor), (channels) => appendAndAnnounce(groupByChannel(events, (_, index) => channels[index]!)));

/** Builds the realtime consumer from the channel mapping of every mounted module. */
export function realtimeConsumer(options: {
  readonly channelsFor: ChannelsFor;
  /** The inbox name (default "realtime"). */
  readonly name?: string;
}): Consumer<ChannelLog | RealtimeBus>;
/**
 * Builds a module's own realtime consumer whose routing reads state: `handles` picks its events
 * without I/O, `channelsForEffect` names their channels in the consumer's transaction.
 */
export function realtimeConsumer<R>(options: {
  readonly handles: (event: EventEnvelope) => boolean;
  readonly channelsForEffect: ChannelsForEffect<R>;
  /** The inbox name (its own: the host's pure consumer is "realtime"). */
  readonly name: string;
}): Consumer<ChannelLog | RealtimeBus | R>;
export function realtimeConsumer<R>(
  options:
    | { readonly channelsFor: ChannelsFor; readonly name?: string }
    | { readonly handles: (event: EventEnvelope) => boolean; readonly channelsForEffect: ChannelsForEffect<R>; readonly name: string },
): Consumer<ChannelLog | RealtimeBus | R> {
  if ("channelsForEffect" in options) {
    const { channelsForEffect } = options;
    return {
      name: options.name,
      handles: options.handles,
      handle: (event) => routeEffectful(channelsForEffect, [event]),
      handleBatch: (events) => routeEffectful(channelsForEffect, events),
    };
  }
  const { channelsFor } = options;
  return {
    name: options.name ?? "realtime",
    handles: (event) => channelsFor(event).length > 0,
    handle: (event) => routePure(channelsFor, [event]),
    handleBatch: (events) => routePure(channelsFor, events),
  };
}

/** Combines the channel mappings of several modules. */
export const combineChannels =
  (...mappings: ReadonlyArray<ChannelsFor>): ChannelsFor =>
  (event) =>
    mappings.flatMap((mapping) => mapping(event));
