/**
 * The newest offset of a channel, found through `ChannelLog.readSince` alone. The port has no
 * head query, so this gallops then bisects with one-row reads: about 2·log2(head) reads, and
 * correct after trimming because the log always keeps each channel's newest message.
 */
import { Effect } from "effect";
import type { ChannelLog } from "../../ports/Realtime.js";

/** The offset of the channel's newest message, 0 when it has none. */
export const channelHead = (log: ChannelLog, channel: string): Effect.Effect<number> =>
  Effect.gen(function* () {
    // The first offset above `since`, or null when `since` is at or past the head.
    const firstAfter = (since: number) =>
      Effect.map(log.readSince(channel, since, 1), (page) => page.messages[0]?.offset ?? null);
    const first = yield* firstAfter(0);
    if (first === null) return 0;
    let low = first; // the head is at least `low`
    let step = 1;
    let high: number; // the head is below `high`
    for (;;) {
      const found = yield* firstAfter(low + step - 1);
      if (found === null) {
        high = low + step;
        break;
      }
      low = found;
      step *= 2;
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const found = yield* firstAfter(middle - 1);
      if (found === null) high = middle;
      else low = found;
    }
    return low;
  });
