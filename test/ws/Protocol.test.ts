/** Realtime protocol rules: what a client may send, channel names, and finding a channel's head. */
import t from "tap";
import fc from "fast-check";
import { Effect } from "effect";
import { parseChannel, parseClientMessage, readClientMessage } from "../../adapters/ws/Protocol.js";
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

t.test("a frame that is no client message is refused with HTTP's codes: malformed_json when not JSON, validation_failed when of another shape", async (t) => {
  t.match(readClientMessage("{not json"), { _tag: "Left", left: { code: "malformed_json" } });
  t.match(readClientMessage('{"type":"subscribe"}'), { _tag: "Left", left: { code: "validation_failed" } });
  t.match(readClientMessage('{"type":"publish","channel":"project:1"}'), { _tag: "Left", left: { code: "validation_failed" } });
  t.match(readClientMessage('{"type":"subscribe","channel":"project:1"}'), { _tag: "Right", right: { type: "subscribe", channel: "project:1" } });
});
