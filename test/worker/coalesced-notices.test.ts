/**
 * Postgres work notices after commit (adapters/postgres/CoalescedNotices.ts): one notice per kind
 * in flight and at most one per spacing, the requests made meanwhile folded into one more after
 * it, so every commit is followed by a notice sent after it and a burst of commits costs two. The
 * cross-process wake-up itself is tested in relay-wakeup.test.ts (a commit through one pool wakes
 * a worker on another; a process whose own loops take the work sends none).
 */
import t from "tap";
import { coalescedNotices } from "../../adapters/postgres/CoalescedNotices.js";
import type { WorkKind } from "../../ports/WorkSignals.js";

/** A send whose every call waits until the test settles it. */
const controlledSend = () => {
  const calls: Array<{ kind: WorkKind; settle: (ok: boolean) => void }> = [];
  const send = (kind: WorkKind): Promise<void> =>
    new Promise<void>((resolve, reject) => calls.push({ kind, settle: (ok) => (ok ? resolve() : reject(new Error("send failed"))) }));
  return { send, calls };
};

const spacingMs = 20;
/** Long enough for a settled send's spacing to run out. */
const turn = () => new Promise((resolve) => setTimeout(resolve, spacingMs + 15));

t.test("a request with nothing in flight sends a notice at once", async (t) => {
  const { send, calls } = controlledSend();
  const request = coalescedNotices(send, spacingMs);
  request("outbox");
  t.same(calls.map((c) => c.kind), ["outbox"]);
});

t.test("requests while a notice is in flight fold into one more notice, sent after it", async (t) => {
  const { send, calls } = controlledSend();
  const request = coalescedNotices(send, spacingMs);
  request("outbox");
  for (let i = 0; i < 50; i++) request("outbox");
  t.equal(calls.length, 1, "nothing more is sent while the first is out");
  calls[0]!.settle(true);
  await turn();
  t.equal(calls.length, 2, "one notice follows for the fifty commits that asked meanwhile");
  calls[1]!.settle(true);
  await turn();
  t.equal(calls.length, 2, "nobody asked during the second: nothing more");
  request("outbox");
  t.equal(calls.length, 3, "idle again: the next request sends at once");
});

t.test("a notice follows the one before no sooner than the spacing, however fast that one was sent", async (t) => {
  const { send, calls } = controlledSend();
  const request = coalescedNotices(send, spacingMs);
  const started = performance.now();
  request("outbox");
  request("outbox");
  calls[0]!.settle(true);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(calls.length, 1, "the first was answered at once, but the spacing is not over");
  while (calls.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
  t.ok(performance.now() - started >= spacingMs - 1, "the owed notice waited out the spacing");
});

t.test("each kind has its own notice in flight", async (t) => {
  const { send, calls } = controlledSend();
  const request = coalescedNotices(send, spacingMs);
  request("outbox");
  request("jobs");
  request("jobs");
  t.same(calls.map((c) => c.kind), ["outbox", "jobs"]);
  calls[1]!.settle(true);
  await turn();
  t.same(calls.map((c) => c.kind), ["outbox", "jobs", "jobs"], "the folded jobs request follows the jobs notice only");
});

t.test("a failed notice is dropped, and a request made meanwhile is still answered", async (t) => {
  const { send, calls } = controlledSend();
  const request = coalescedNotices(send, spacingMs);
  request("outbox");
  request("outbox");
  calls[0]!.settle(false);
  await turn();
  t.equal(calls.length, 2, "the owed notice goes out after the failure");
  calls[1]!.settle(false);
  await turn();
  request("outbox");
  t.equal(calls.length, 3, "a failure leaves the sender idle, not stuck");
});
