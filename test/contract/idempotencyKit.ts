/**
 * Contract kit for the IdempotencyStore: a key is reserved once, later callers see the record,
 * an expired lock or record is taken over, a response is stored for replay, a release frees the
 * key, and expired records are purged.
 */
import { Effect } from "effect";
import { IdempotencyStore, type StoredResponse } from "../../ports/IdempotencyStore.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type IdempotencyKitPorts = IdempotencyStore;

const store = <A>(f: (s: IdempotencyStore) => Effect.Effect<A>) => Effect.flatMap(IdempotencyStore, f);
const reserve = (key: string, requestHash: string, now: number, opts: { scope?: string; lockMs?: number; ttlMs?: number } = {}) =>
  store((s) =>
    s.reserve({
      scope: opts.scope ?? "user:1",
      key,
      requestHash,
      now: at(now),
      lockedUntil: at(now + (opts.lockMs ?? 30_000)),
      expiresAt: at(now + (opts.ttlMs ?? 86_400_000)),
    }),
  );
const response: StoredResponse = { status: 201, body: { id: "r1", items: [1, 2] }, headers: { location: "/v1/r/r1" } };

/** The cases of the idempotency store kit. */
export const idempotencyCases: ReadonlyArray<KitCase<IdempotencyKitPorts>> = [
  {
    name: "idempotency: the first caller reserves the key; a second sees the in-progress record",
    run: async (t, run) => {
      t.same(await run(reserve("k1", "hash-a", 0)), { reserved: true });
      const second = await run(reserve("k1", "hash-b", 1_000));
      t.equal(second.reserved, false);
      if (!second.reserved) {
        t.equal(second.existing.state, "in_progress");
        t.equal(second.existing.requestHash, "hash-a", "the holder's hash, so a mismatch can be told");
        t.equal(second.existing.response, null);
        t.equal(second.existing.lockedUntil.getTime(), at(30_000).getTime());
        t.equal(second.existing.expiresAt.getTime(), at(86_400_000).getTime());
        t.equal(second.existing.scope, "user:1");
        t.equal(second.existing.key, "k1");
      }
    },
  },
  {
    name: "idempotency: keys are scoped to the caller",
    run: async (t, run) => {
      t.same(await run(reserve("k1", "h", 0, { scope: "user:1" })), { reserved: true });
      t.same(await run(reserve("k1", "h", 0, { scope: "user:2" })), { reserved: true });
    },
  },
  {
    name: "idempotency: a completed record returns its stored response",
    run: async (t, run) => {
      await run(reserve("k1", "h", 0));
      await run(store((s) => s.complete({ scope: "user:1", key: "k1", response })));
      const again = await run(reserve("k1", "h", 60_000));
      t.equal(again.reserved, false, "a completed record is not taken over when its lock time passes");
      if (!again.reserved) {
        t.equal(again.existing.state, "completed");
        t.same(again.existing.response, response);
      }
    },
  },
  {
    name: "idempotency: an in-progress record whose lock expired is taken over",
    run: async (t, run) => {
      await run(reserve("k1", "hash-a", 0, { lockMs: 10_000 }));
      t.equal((await run(reserve("k1", "hash-a", 9_999))).reserved, false, "still locked");
      t.same(await run(reserve("k1", "hash-b", 10_000)), { reserved: true }, "lock expired");
      const now = await run(reserve("k1", "hash-c", 10_001));
      t.equal(now.reserved, false);
      if (!now.reserved) t.equal(now.existing.requestHash, "hash-b", "the new holder's request");
    },
  },
  {
    name: "idempotency: any record past its expiry is taken over",
    run: async (t, run) => {
      await run(reserve("k1", "h", 0, { ttlMs: 50_000 }));
      await run(store((s) => s.complete({ scope: "user:1", key: "k1", response })));
      t.same(await run(reserve("k1", "h2", 50_000)), { reserved: true });
    },
  },
  {
    name: "idempotency: a released key can be reserved again",
    run: async (t, run) => {
      await run(reserve("k1", "h", 0));
      await run(store((s) => s.release("user:1", "k1")));
      t.same(await run(reserve("k1", "h", 1)), { reserved: true });
    },
  },
  {
    name: "idempotency: release does not drop a completed record",
    run: async (t, run) => {
      await run(reserve("k1", "h", 0));
      await run(store((s) => s.complete({ scope: "user:1", key: "k1", response })));
      await run(store((s) => s.release("user:1", "k1")));
      t.equal((await run(reserve("k1", "h", 1))).reserved, false);
    },
  },
  {
    name: "idempotency: purge deletes only expired records and counts them",
    run: async (t, run) => {
      await run(reserve("old-1", "h", 0, { ttlMs: 1_000 }));
      await run(reserve("old-2", "h", 0, { ttlMs: 2_000 }));
      await run(reserve("young", "h", 0, { ttlMs: 100_000 }));
      t.equal(await run(store((s) => s.purgeExpired(at(2_000)))), 2);
      t.equal(await run(store((s) => s.purgeExpired(at(2_000)))), 0);
      t.equal((await run(reserve("young", "h", 3_000))).reserved, false, "the unexpired record stays");
    },
  },
  {
    name: "idempotency: of concurrent reserves of one key exactly one wins",
    run: async (t, run) => {
      await run(warmUp(10, store((s) => s.purgeExpired(new Date(0)))));
      const results = await run(
        Effect.all(Array.from({ length: 10 }, (_, i) => reserve("k1", `h${i}`, 0)), { concurrency: "unbounded" }),
      );
      t.equal(results.filter((r) => r.reserved).length, 1);
    },
  },
];

/** Runs the idempotency store kit against an adapter. */
export const idempotencySuite = (options: SuiteOptions<IdempotencyKitPorts>): Promise<unknown> =>
  runCases(options, idempotencyCases);
