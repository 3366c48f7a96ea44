/** Outbox relay rules: at-least-once delivery of committed events, inbox dedupe, backoff, dead letters, replay, isolation of failing consumers. */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import {
  deliverTo,
  listDeadMessages,
  relayOnce,
  replayMessage,
  type RelayOptions,
} from "../../adapters/worker/OutboxRelay.js";
import { at, makeEnvelope, openRuntime } from "./fixtures.js";

/** A consumer that records the ids it applied; fails while `failWhen` says so. */
const recorder = (name: string, failWhen: (event: EventEnvelope) => boolean = () => false) => {
  const seen: string[] = [];
  const consumer: Consumer = {
    name,
    handles: () => true,
    handle: (event) =>
      Effect.suspend(() =>
        failWhen(event) ? Effect.fail(new Error(`${name} is down`)) : Effect.sync(() => void seen.push(event.id)),
      ),
  };
  return { consumer, seen };
};

const append = (events: ReadonlyArray<EventEnvelope>) =>
  Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (outbox) => outbox.append(events))));

const options: RelayOptions = { workerId: "relay-test", batchSize: 10, leaseMs: 30_000 };
const minutes = (n: number) => n * 60_000;

forEachDialect(t, "the relay delivers every committed event in order and never one whose transaction rolled back", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const { consumer, seen } = recorder("projection");
  const committed = [makeEnvelope(), makeEnvelope(), makeEnvelope()];
  const rolledBack = makeEnvelope();
  await runtime.runPromise(append(committed));
  const exit = await runtime.runPromiseExit(
    Effect.flatMap(Transactions, (tx) => tx.run(Effect.zipRight(Effect.flatMap(Outbox, (o) => o.append([rolledBack])), Effect.fail("abort")))),
  );
  t.equal(exit._tag, "Failure", "the second command failed and rolled back");
  const first = await runtime.runPromise(relayOnce([consumer], options));
  t.same(first, { claimed: 3, delivered: 3, retried: 0, dead: 0 });
  t.same(seen, committed.map((e) => e.id));
  t.notOk(seen.includes(rolledBack.id));
  const again = await runtime.runPromise(relayOnce([consumer], options));
  t.equal(again.claimed, 0, "delivered messages are not claimed again");
});

forEachDialect(t, "an event delivered twice is applied once (consumer inbox)", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const { consumer, seen } = recorder("search");
  const event = makeEnvelope();
  await runtime.runPromise(append([event]));
  const now = Date.now();
  // A relay claims the message, the consumer commits, and the relay dies before marking it delivered.
  const claimed = await runtime.runPromise(
    Effect.flatMap(OutboxRelayStore, (store) => store.claimBatch({ workerId: "crashed", now: new Date(now), limit: 10, leaseMs: 1_000 })),
  );
  t.equal(claimed.length, 1);
  t.same(await runtime.runPromise(deliverTo(consumer, claimed[0]!.event)), { ok: true });
  // After the lease, another relay redelivers it.
  const pass = await runtime.runPromise(at(now + 5_000)(relayOnce([consumer], options)));
  t.same(pass, { claimed: 1, delivered: 1, retried: 0, dead: 0 });
  t.same(await runtime.runPromise(deliverTo(consumer, event)), { ok: true });
  t.same(seen, [event.id], "the consumer applied the event exactly once");
});

forEachDialect(t, "a consumer that keeps failing backs off, is dead-lettered after the bound, and replay delivers it", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  let down = true;
  const { consumer, seen } = recorder("webhooks", () => down);
  const event = makeEnvelope();
  await runtime.runPromise(append([event]));
  const t0 = Date.now();
  const bounded: RelayOptions = { ...options, backoff: { baseMs: minutes(1), maxMs: minutes(1), maxAttempts: 3 } };
  const pass = (millis: number) => runtime.runPromise(at(millis)(relayOnce([consumer], bounded)));

  t.same(await pass(t0), { claimed: 1, delivered: 0, retried: 1, dead: 0 });
  t.equal((await pass(t0 + 1_000)).claimed, 0, "the next attempt is in the future, not now");
  t.equal((await pass(t0 + minutes(10))).retried, 1, "second attempt fails and is retried");
  t.equal((await pass(t0 + minutes(20))).dead, 1, "third attempt reaches the bound");
  t.equal((await pass(t0 + minutes(60))).claimed, 0, "a dead message is not retried");

  const dead = await runtime.runPromise(listDeadMessages());
  t.same(dead.map((m) => m.id), [event.id]);
  t.match(dead[0]!.lastError, /webhooks: Error: webhooks is down/);

  down = false;
  t.equal(await runtime.runPromise(at(t0 + minutes(60))(replayMessage(event.id))), true);
  t.equal(await runtime.runPromise(replayMessage(event.id)), false, "only a dead message can be replayed");
  t.same(await pass(t0 + minutes(60)), { claimed: 1, delivered: 1, retried: 0, dead: 0 });
  t.same(seen, [event.id]);
  t.same(await runtime.runPromise(listDeadMessages()), []);
});

forEachDialect(t, "one consumer's outage neither stops other messages nor repeats other consumers' work", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const events = [makeEnvelope(), makeEnvelope(), makeEnvelope()];
  let down = true;
  const healthy = recorder("notifications");
  const broken = recorder("merchant-webhooks", () => down);
  const picky = recorder("projection", (e) => e.id === events[0]!.id);
  const consumers = [healthy.consumer, broken.consumer, picky.consumer];
  await runtime.runPromise(append(events));
  const t0 = Date.now();

  t.same(await runtime.runPromise(at(t0)(relayOnce(consumers, options))), { claimed: 3, delivered: 0, retried: 3, dead: 0 });
  t.same(healthy.seen, events.map((e) => e.id), "the healthy consumer got every message");
  t.same(picky.seen, [events[1]!.id, events[2]!.id], "a failure on one message does not block the next");
  t.same(broken.seen, []);

  down = false;
  t.same(await runtime.runPromise(at(t0 + minutes(30))(relayOnce(consumers, options))), {
    claimed: 3,
    delivered: 2,
    retried: 1,
    dead: 0,
  });
  t.same(healthy.seen, events.map((e) => e.id), "no consumer applied an event twice");
  t.same(broken.seen, events.map((e) => e.id), "the recovered consumer caught up");
  t.same(picky.seen, [events[1]!.id, events[2]!.id]);
});
