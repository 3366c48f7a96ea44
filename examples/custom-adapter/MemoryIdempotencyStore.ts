/**
 * An in-memory IdempotencyStore, written as an adapter author would write one: implement the
 * port's interface, provide it with a Layer, and prove it with the contract kit
 * (test/examples/custom-adapter.test.ts). Fine for a single process and for tests; it forgets
 * everything on restart, so production wants a shared store.
 */
import { Effect, Layer } from "effect";
import { IdempotencyStore, type IdempotencyRecord, type ReserveResult } from "domainkit/ports";

/** Builds a fresh, empty store. */
export const makeMemoryIdempotencyStore = (): IdempotencyStore => {
  const records = new Map<string, IdempotencyRecord>();
  // A separator that cannot appear in a scope keeps (scope, key) pairs distinct.
  const id = (scope: string, key: string) => `${scope}\u0000${key}`;
  return {
    // One synchronous step, so concurrent fibers cannot interleave inside it: exactly one wins.
    reserve: (req) =>
      Effect.sync((): ReserveResult => {
        const existing = records.get(id(req.scope, req.key));
        const now = req.now.getTime();
        const takeOver =
          existing === undefined ||
          existing.expiresAt.getTime() <= now ||
          (existing.state === "in_progress" && existing.lockedUntil.getTime() <= now);
        if (!takeOver) return { reserved: false, existing };
        records.set(id(req.scope, req.key), {
          scope: req.scope,
          key: req.key,
          requestHash: req.requestHash,
          state: "in_progress",
          response: null,
          lockedUntil: req.lockedUntil,
          expiresAt: req.expiresAt,
        });
        return { reserved: true };
      }),
    complete: ({ scope, key, response }) =>
      Effect.sync(() => {
        const existing = records.get(id(scope, key));
        // Stored as a copy, as a database would: later changes by the caller must not leak in.
        if (existing) records.set(id(scope, key), { ...existing, state: "completed", response: structuredClone(response) });
      }),
    release: (scope, key) =>
      Effect.sync(() => {
        if (records.get(id(scope, key))?.state === "in_progress") records.delete(id(scope, key));
      }),
    purgeExpired: (now) =>
      Effect.sync(() => {
        let purged = 0;
        for (const [k, record] of records) {
          if (record.expiresAt.getTime() <= now.getTime()) {
            records.delete(k);
            purged++;
          }
        }
        return purged;
      }),
  };
};

/** Provides a fresh in-memory store. */
export const memoryIdempotencyStoreLayer = (): Layer.Layer<IdempotencyStore> =>
  Layer.sync(IdempotencyStore, makeMemoryIdempotencyStore);
