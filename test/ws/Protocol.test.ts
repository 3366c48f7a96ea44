/** Realtime protocol rules: what a client may send, channel names, and finding a channel's head. */
import t from "tap";
import fc from "fast-check";
import { Effect } from "effect";
import { parseChannel, parseClientMessage } from "../../adapters/ws/Protocol.js";
import { channelHead } from "../../adapters/ws/ChannelHead.js";
import type { ChannelLog, ChannelMessage } from "../../ports/Realtime.js";

t.test("subscribe and unsubscribe messages are accepted, with an optional since", async (t) => {
  t.same(parseClientMessage('{"type":"subscribe","channel":"project:1"}'), { type: "subscribe", channel: "project:1" });
  t.same(parseClientMessage('{"type":"subscribe","channel":"project:1","since":4}'), {
    type: "subscribe",
    channel: "project:1",
    since: 4,
  });
  t.same(parseClientMessage('{"type":"unsubscribe","channel":"order:9"}'), { type: "unsubscribe", channel: "order:9" });
});

t.test("malformed messages are refused", async (t) => {
  for (const text of ["", "not json", "[]", '{"type":"subscribe"}', '{"type":"subscribe","channel":"a:1","since":-1}',
    '{"type":"subscribe","channel":"a:1","since":1.5}', '{"type":"publish","channel":"a:1"}', '{"channel":"a:1"}']) {
    t.equal(parseClientMessage(text), null, text);
  }
});

t.test("a channel is <kind>:<id> with both parts present", async (t) => {
  t.same(parseChannel("project:abc"), { kind: "project", id: "abc" });
  t.same(parseChannel("file:a:b"), { kind: "file", id: "a:b" });
  t.equal(parseChannel("project"), null);
  t.equal(parseChannel(":abc"), null);
  t.equal(parseChannel("project:"), null);
});

/** A log holding offsets 1..head of which those up to `trimmedThrough` were dropped. */
const memoryLog = (head: number, trimmedThrough: number): ChannelLog => ({
  append: () => Effect.die("unused"),
  trim: () => Effect.die("unused"),
  readSince: (channel, since, limit) => {
    const messages: ChannelMessage[] = [];
    for (let offset = Math.max(since + 1, trimmedThrough + 1); offset <= head && messages.length < limit; offset++) {
      messages.push({ channel, offset, event: {} as ChannelMessage["event"] });
    }
    return Effect.succeed({ messages, resync: since < trimmedThrough });
  },
});

t.test("the head of a channel is its newest offset, trimmed or not", async (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 5000 }), fc.nat(), (head, trim) => {
      const trimmedThrough = head === 0 ? 0 : trim % head; // the newest is always kept
      return Effect.runSync(channelHead(memoryLog(head, trimmedThrough), "c:1")) === head;
    }),
  );
  t.equal(Effect.runSync(channelHead(memoryLog(0, 0), "c:1")), 0);
  t.equal(Effect.runSync(channelHead(memoryLog(1, 0), "c:1")), 1);
  t.equal(Effect.runSync(channelHead(memoryLog(1000, 999), "c:1")), 1000);
});
