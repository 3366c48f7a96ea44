/**
 * An in-memory IdempotencyStore for kernel tests. `Ref.modify` makes reserve atomic, the role
 * the conditional insert plays in SQL. It also counts what happened so tests can compare the
 * number of reservations with the number of executions.
 */
import { Effect, Layer, Ref } from "effect";
import { IdempotencyStore, type IdempotencyRecord, type ReserveResult } from "../../../ports/IdempotencyStore.js";

/** What the store saw, for assertions. */
export interface StoreLog {
  readonly reservations: number;
  readonly completions: number;
  readonly releases: number;
}

/** The store, a view of its records and its log. */
export interface InMemoryIdempotencyStore {
  readonly store: IdempotencyStore;
  readonly layer: Layer.Layer<IdempotencyStore>;
  readonly records: Effect.Effect<ReadonlyMap<string, IdempotencyRecord>>;
  readonly log: Effect.Effect<StoreLog>;
  /** Puts a record in place directly, as if an earlier process had written it. */
  readonly seed: (record: IdempotencyRecord) => Effect.Effect<void>;
}

const keyOf = (scope: string, key: string) => JSON.stringify([scope, key]);

/** Builds an empty store. */
export const makeInMemoryIdempotencyStore: Effect.Effect<InMemoryIdempotencyStore> = Effect.gen(function* () {
  const records = yield* Ref.make(new Map<string, IdempotencyRecord>());
  const log = yield* Ref.make<StoreLog>({ reservations: 0, completions: 0, releases: 0 });
  const store: IdempotencyStore = {
    reserve: (req) =>
      Effect.flatMap(
        Ref.modify(records, (map): [ReserveResult, Map<string, IdempotencyRecord>] => {
          const id = keyOf(req.scope, req.key);
          const existing = map.get(id);
          const now = req.now.getTime();
          const takeOver =
            existing === undefined ||
            now >= existing.expiresAt.getTime() ||
            (existing.state === "in_progress" && now >= existing.lockedUntil.getTime());
          if (!takeOver) return [{ reserved: false, existing }, map];
          const next = new Map(map);
          next.set(id, {
            scope: req.scope,
            key: req.key,
            requestHash: req.requestHash,
            state: "in_progress",
            response: null,
            lockedUntil: req.lockedUntil,
            expiresAt: req.expiresAt,
          });
          return [{ reserved: true }, next];
        }),
        (result): Effect.Effect<ReserveResult> =>
          result.reserved ? Effect.as(Ref.update(log, (l) => ({ ...l, reservations: l.reservations + 1 })), result) : Effect.succeed(result),
      ),
    complete: ({ scope, key, response }) =>
      Effect.zipRight(
        Ref.update(records, (map) => {
          const existing = map.get(keyOf(scope, key));
          if (existing === undefined) return map;
          return new Map(map).set(keyOf(scope, key), { ...existing, state: "completed", response });
        }),
        Ref.update(log, (l) => ({ ...l, completions: l.completions + 1 })),
      ),
    release: (scope, key) =>
      Effect.zipRight(
        Ref.update(records, (map) => {
          const existing = map.get(keyOf(scope, key));
          if (existing === undefined || existing.state !== "in_progress") return map;
          const next = new Map(map);
          next.delete(keyOf(scope, key));
          return next;
        }),
        Ref.update(log, (l) => ({ ...l, releases: l.releases + 1 })),
      ),
    purgeExpired: (now) =>
      Ref.modify(records, (map): [number, Map<string, IdempotencyRecord>] => {
        const next = new Map([...map].filter(([, r]) => r.expiresAt.getTime() > now.getTime()));
        return [map.size - next.size, next];
      }),
  };
  return {
    store,
    layer: Layer.succeed(IdempotencyStore, store),
    records: Ref.get(records),
    log: Ref.get(log),
    seed: (record) => Ref.update(records, (map) => new Map(map).set(keyOf(record.scope, record.key), record)),
  };
});
