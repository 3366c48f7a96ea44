/**
 * Contract kit for the Outbox and the relay's OutboxRelayStore: appends commit with the
 * transaction, claims come in event order and are leased to one relay, failures back off,
 * dead-letter and can be replayed.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type OutboxKitPorts = Transactions | Outbox | OutboxRelayStore;

/** A test envelope with id `id`. */
export const testEvent = (id: string, data: unknown = { n: id }): EventEnvelope => ({
  id,
  type: "TestHappened",
  schema_version: 1,
  tenant_id: "tenant-1",
  aggregate_id: "aggregate-1",
  aggregate_version: 1,
  occurred_at: "2030-01-01T00:00:00.000Z",
  actor_id: null,
  data,
});

const append = (...ids: string[]) =>
  Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (o) => o.append(ids.map((id) => testEvent(id))))));
const relay = OutboxRelayStore;
const claim = (workerId: string, now: Date, limit = 100, leaseMs = 60_000) =>
  Effect.flatMap(relay, (r) => r.claimBatch({ workerId, now, limit, leaseMs }));
const ids = (messages: ReadonlyArray<{ readonly id: string }>) => messages.map((m) => m.id);

/** The cases of the outbox kit. */
export const outboxCases: ReadonlyArray<KitCase<OutboxKitPorts>> = [
  {
    name: "outbox: committed events are claimed in the order they were appended",
    run: async (t, run) => {
      await run(append("e1", "e2", "e3"));
      await run(append("e4"));
      await run(append("e5", "e6"));
      const claimed = await run(claim("relay-a", at(1_000)));
      t.same(ids(claimed), ["e1", "e2", "e3", "e4", "e5", "e6"]);
      t.same(claimed[0]?.event, testEvent("e1"), "the envelope round-trips");
      t.equal(claimed[0]?.status, "pending");
      t.equal(claimed[0]?.attempts, 1, "a claim counts as an attempt");
    },
  },
  {
    name: "outbox: a large append (1,300 events in one call) keeps every event, in the order appended",
    run: async (t, run) => {
      const many = Array.from({ length: 1_300 }, (_, i) => `many-${String(i).padStart(4, "0")}`);
      await run(append("before"));
      await run(append(...many));
      await run(append("after"));
      const claimed = await run(claim("relay-a", at(1_000), 2_000));
      t.same(ids(claimed), ["before", ...many, "after"], "each once, in order");
      t.same(claimed[1_299]?.event, testEvent("many-1298"), "the envelopes round-trip");
    },
  },
  {
    name: "outbox: an append in a rolled-back transaction is never delivered",
    run: async (t, run) => {
      await run(
        Effect.exit(
          Effect.flatMap(Transactions, (tx) =>
            tx.run(Effect.zipRight(Effect.flatMap(Outbox, (o) => o.append([testEvent("lost")])), Effect.fail("command failed"))),
          ),
        ),
      );
      await run(append("kept"));
      t.same(ids(await run(claim("relay-a", at(1_000)))), ["kept"]);
    },
  },
  {
    name: "outbox: a claim takes at most `limit` messages, oldest first",
    run: async (t, run) => {
      await run(append("e1", "e2", "e3"));
      t.same(ids(await run(claim("relay-a", at(1_000), 2))), ["e1", "e2"]);
      t.same(ids(await run(claim("relay-b", at(1_000), 2))), ["e3"]);
    },
  },
  {
    name: "outbox: a leased message is not claimed by another relay until the lease expires",
    run: async (t, run) => {
      await run(append("e1"));
      t.same(ids(await run(claim("relay-a", at(1_000), 10, 30_000))), ["e1"]);
      t.same(ids(await run(claim("relay-b", at(2_000)))), [], "held by relay-a");
      const again = await run(claim("relay-b", at(31_001)));
      t.same(ids(again), ["e1"], "taken over after the lease");
      t.equal(again[0]?.attempts, 2);
    },
  },
  {
    name: "outbox: concurrent relays never hold the same message at once",
    run: async (t, run) => {
      const all = Array.from({ length: 40 }, (_, i) => `e${String(i).padStart(2, "0")}`);
      await run(append(...all));
      // Claims at an instant before anything is due: they take nothing and warm the claim itself up.
      await run(warmUp(5, claim("warm-up", new Date(0), 10)));
      const batches = await run(
        Effect.all(
          Array.from({ length: 5 }, (_, w) => claim(`relay-${w}`, at(1_000), 10)),
          { concurrency: "unbounded" },
        ),
      );
      const claimed = batches.flatMap(ids);
      t.equal(claimed.length, 40, "every message claimed");
      t.equal(new Set(claimed).size, 40, "none twice");
    },
  },
  {
    name: "outbox: a delivered message is never claimed again",
    run: async (t, run) => {
      await run(append("e1"));
      await run(claim("relay-a", at(1_000), 10, 1_000));
      await run(Effect.flatMap(relay, (r) => r.markDelivered("e1")));
      t.same(ids(await run(claim("relay-b", at(100_000)))), []);
    },
  },
  {
    name: "outbox: a failed message is retried at its retry time with its error kept",
    run: async (t, run) => {
      await run(append("e1"));
      await run(claim("relay-a", at(1_000)));
      await run(Effect.flatMap(relay, (r) => r.markFailed("e1", { error: "consumer down", retryAt: at(10_000) })));
      t.same(ids(await run(claim("relay-a", at(9_999)))), [], "not before the retry time");
      const retried = await run(claim("relay-a", at(10_000)));
      t.same(ids(retried), ["e1"]);
      t.equal(retried[0]?.lastError, "consumer down");
      t.equal(retried[0]?.attempts, 2);
      t.equal(retried[0]?.nextAttemptAt.getTime(), at(10_000).getTime());
    },
  },
  {
    name: "outbox: a message failed without a retry time is dead, listed, and replayable",
    run: async (t, run) => {
      await run(append("e1", "e2"));
      await run(claim("relay-a", at(1_000)));
      await run(Effect.flatMap(relay, (r) => r.markFailed("e1", { error: "poison", retryAt: null })));
      await run(Effect.flatMap(relay, (r) => r.markDelivered("e2")));
      t.same(ids(await run(claim("relay-a", at(500_000)))), [], "dead messages are not claimed");
      const dead = await run(Effect.flatMap(relay, (r) => r.listDead(10)));
      t.same(ids(dead), ["e1"]);
      t.equal(dead[0]?.status, "dead");
      t.equal(dead[0]?.lastError, "poison");
      t.equal(await run(Effect.flatMap(relay, (r) => r.replay("e1", at(600_000)))), true);
      t.equal(await run(Effect.flatMap(relay, (r) => r.replay("e1", at(600_000)))), false, "no longer dead");
      t.equal(await run(Effect.flatMap(relay, (r) => r.replay("e2", at(600_000)))), false, "a delivered message is not dead");
      t.same(ids(await run(Effect.flatMap(relay, (r) => r.listDead(10)))), []);
      const replayed = await run(claim("relay-a", at(600_000)));
      t.same(ids(replayed), ["e1"]);
      t.equal(replayed[0]?.attempts, 1, "attempts start over");
    },
  },
  {
    name: "outbox: retention deletes delivered messages made before the cutoff, never pending or dead ones",
    run: async (t, run) => {
      await run(append("e1", "e2", "e3"));
      await run(claim("relay-a", at(1_000)));
      await run(Effect.flatMap(relay, (r) => r.markDelivered("e1")));
      await run(Effect.flatMap(relay, (r) => r.markFailed("e2", { error: "poison", retryAt: null })));
      const purge = (before: Date) => run(Effect.flatMap(relay, (r) => r.purgeDelivered(before, 100)));
      t.equal(await purge(new Date(Date.now() - 3_600_000)), 0, "nothing made before an hour ago");
      t.equal(await purge(new Date(Date.now() + 60_000)), 1, "the delivered message");
      t.equal(await purge(new Date(Date.now() + 60_000)), 0, "once");
      t.same(ids(await run(Effect.flatMap(relay, (r) => r.listDead(10)))), ["e2"], "the dead message stays");
      t.same(ids(await run(claim("relay-b", at(500_000)))), ["e3"], "the pending message stays");
    },
  },
  {
    name: "outbox: an event history scrub removes its fields from delivered messages (dead ones only through scrubDead), never from pending ones",
    run: async (t, run) => {
      const withSecret = (id: string) => testEvent(id, { n: id, secret: `secret of ${id}` });
      await run(Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (o) => o.append(["e1", "e2", "e3"].map(withSecret))))));
      await run(claim("relay-a", at(1_000)));
      await run(Effect.flatMap(relay, (r) => r.markDelivered("e1")));
      await run(Effect.flatMap(relay, (r) => r.markFailed("e2", { error: "poison", retryAt: null })));
      await run(Effect.flatMap(relay, (r) => r.markFailed("e3", { error: "later", retryAt: at(10_000_000) })));
      const store = await run(relay);
      const scrub = { eventType: "TestHappened", schemaVersion: 1, fields: ["secret"] };
      const later = new Date(Date.now() + 60_000);
      // Both are optional: an adapter without them keeps that history whole.
      if (store.scrubDelivered !== undefined) {
        t.equal(await run(store.scrubDelivered(scrub, new Date(Date.now() - 3_600_000), 100)), 0, "nothing made before an hour ago");
        t.equal(await run(store.scrubDelivered({ ...scrub, eventType: "OtherHappened" }, later, 100)), 0, "another event type is not reached");
        t.equal(await run(store.scrubDelivered(scrub, later, 100)), 1, "the delivered message");
        t.equal(await run(store.scrubDelivered(scrub, later, 100)), 0, "once: a scrubbed message is not reached again");
      }
      const [dead] = await run(Effect.flatMap(relay, (r) => r.listDead(10)));
      t.same(dead?.event.data, { n: "e2", secret: "secret of e2" }, "scrubDelivered leaves the dead message whole");
      if (store.scrubDead !== undefined) {
        t.equal(await run(store.scrubDead(scrub, later, 100)), 1, "the dead message, through scrubDead");
        t.equal(await run(store.scrubDead(scrub, later, 100)), 0, "once");
        const [scrubbed] = await run(Effect.flatMap(relay, (r) => r.listDead(10)));
        t.same(scrubbed?.event.data, { n: "e2" }, "the dead message lost the field and kept the rest");
        t.equal(await run(Effect.flatMap(relay, (r) => r.replay("e2", at(20_000_000)))), true, "and can still be replayed");
      }
      const pending = await run(claim("relay-b", at(20_000_000)));
      t.same(
        pending.filter((m) => m.id === "e3").map((m) => m.event.data),
        [{ n: "e3", secret: "secret of e3" }],
        "the pending message stays whole",
      );
    },
  },
];

/** Runs the outbox kit against an adapter. */
export const outboxSuite = (options: SuiteOptions<OutboxKitPorts>): Promise<unknown> => runCases(options, outboxCases);
