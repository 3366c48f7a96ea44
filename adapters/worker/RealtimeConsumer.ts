/**
 * The realtime consumer: appends each event to the channels it belongs to (in the consumer's
 * transaction, so offsets commit with the inbox record) and, once committed, tells every
 * process through the RealtimeBus so their websocket subscribers read the new messages.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { ChannelLog, RealtimeBus, type ChannelMessage } from "../../ports/Realtime.js";
import type { Consumer } from "./Consumer.js";

/** Which channels (`<kind>:<id>`) an event goes to; modules supply it. Empty: not a realtime event. */
export type ChannelsFor = (event: EventEnvelope) => ReadonlyArray<string>;

/**
 * Appends `events`, in order, to each channel they belong to (a channel a mapping lists twice
 * gets an event once; the channels in sorted order), and answers the after-commit step announcing each channel once, at its
 * newest offset: a subscriber reads everything up to it. Published after commit, so a notice
 * never points at an offset that was rolled back.
 */
const appendAndAnnounce = (channelsFor: ChannelsFor, events: ReadonlyArray<EventEnvelope>) =>
  Effect.gen(function* () {
    const log = yield* ChannelLog;
    const bus = yield* RealtimeBus;
    const byChannel = new Map<string, EventEnvelope[]>();
    for (const event of events) {
      for (const channel of new Set(channelsFor(event))) {
        const list = byChannel.get(channel);
        if (list === undefined) byChannel.set(channel, [event]);
        else list.push(event);
      }
    }
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

/** Builds the realtime consumer from the channel mapping of every mounted module. */
export const realtimeConsumer = (options: {
  readonly channelsFor: ChannelsFor;
  /** The inbox name (default "realtime"). */
  readonly name?: string;
}): Consumer<ChannelLog | RealtimeBus> => ({
  name: options.name ?? "realtime",
  handles: (event) => options.channelsFor(event).length > 0,
  handle: (event) => appendAndAnnounce(options.channelsFor, [event]),
  handleBatch: (events) => appendAndAnnounce(options.channelsFor, events),
});

/** Combines the channel mappings of several modules. */
export const combineChannels =
  (...mappings: ReadonlyArray<ChannelsFor>): ChannelsFor =>
  (event) =>
    mappings.flatMap((mapping) => mapping(event));
