/** Realtime protocol rules: what a client may send, channel names, and finding a channel's head. */
import t from "tap";
import fc from "fast-check";
import { Effect } from "effect";
import { parseChannel, parseClientMessage } from "../../adapters/ws/Protocol.js";
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
