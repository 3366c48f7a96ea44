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

/** Builds the realtime consumer from the channel mapping of every mounted module. */
export const realtimeConsumer = (options: {
  readonly channelsFor: ChannelsFor;
  /** The inbox name (default "realtime"). */
  readonly name?: string;
}): Consumer<ChannelLog | RealtimeBus> => ({
  name: options.name ?? "realtime",
  handles: (event) => options.channelsFor(event).length > 0,
  handle: (event) =>
    Effect.gen(function* () {
      const log = yield* ChannelLog;
      const bus = yield* RealtimeBus;
      // A mapping may list a channel twice; appending twice would show the event twice.
      const channels = [...new Set(options.channelsFor(event))];
      const appended: ChannelMessage[] = [];
      for (const channel of channels) appended.push(yield* log.append(channel, event));
      // Published after commit: a notice must never point at an offset that was rolled back.
      return Effect.forEach(
        appended,
        (message) => bus.publish({ type: "message", channel: message.channel, offset: message.offset }),
        { discard: true },
      );
    }),
  handleBatch: (events) =>
    Effect.gen(function* () {
      const log = yield* ChannelLog;
      const bus = yield* RealtimeBus;
      const byChannel = new Map<string, EventEnvelope[]>();
      for (const event of events) {
        for (const channel of new Set(options.channelsFor(event))) {
          const list = byChannel.get(channel);
          if (list === undefined) byChannel.set(channel, [event]);
          else list.push(event);
        }
      }
      const newest = new Map<string, number>();
      for (const [channel, list] of byChannel) {
        const appended =
          log.appendMany !== undefined ? yield* log.appendMany(channel, list) : yield* Effect.forEach(list, (event) => log.append(channel, event));
        const last = appended[appended.length - 1];
        if (last !== undefined) newest.set(channel, last.offset);
      }
      // One notice per channel, at its newest offset: a subscriber reads everything up to it.
      return Effect.forEach(newest, ([channel, offset]) => bus.publish({ type: "message", channel, offset }), { discard: true });
    }),
});

/** Combines the channel mappings of several modules. */
export const combineChannels =
  (...mappings: ReadonlyArray<ChannelsFor>): ChannelsFor =>
  (event) =>
    mappings.flatMap((mapping) => mapping(event));
