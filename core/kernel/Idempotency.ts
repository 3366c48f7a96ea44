/**
 * Idempotency keys (docs/conventions.md, Idempotency). The key, scoped to the caller and bound to a
 * hash of the request, is reserved in the store BEFORE any side effect runs; a finished request
 * is replayed, a different request under the same key is refused, and a retry while the first
 * is still running is told to come back later. This is the one idempotency path every module uses.
 */
import { Clock, Effect, Exit } from "effect";
import {
  IdempotencyStore,
  type IdempotencyRecord,
  type StoredResponse,
} from "../../ports/IdempotencyStore.js";
import { Transactions } from "../../ports/Transactions.js";
import {
  IdempotencyKeyRequired,
  IdempotencyKeyReused,
  IdempotencyRequestInProgress,
  ValidationFailed,
} from "./Errors.js";
import { withSpan } from "./Span.js";

/** One request under an idempotency key: the caller's scope, the key and the request's hash. */
export interface IdempotentRequest {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
}

/** How long a reservation holds, how long records live, and the Retry-After of an in-flight answer. */
export interface IdempotencyPolicy {
  readonly lockMs: number;
  readonly ttlMs: number;
  readonly retryAfterSeconds: number;
}

/** A one-minute lock, records kept 24 hours, retry after one second. */
export const defaultIdempotencyPolicy: IdempotencyPolicy = {
  lockMs: 60_000,
  ttlMs: 86_400_000,
  retryAfterSeconds: 1,
};

/** The longest key accepted, in characters. */
export const maxIdempotencyKeyLength = 255;

/** Checks an Idempotency-Key header: missing or empty is 400 required, over 255 characters is 400 malformed. */
export const validateIdempotencyKey = (
  key: string | undefined,
): Effect.Effect<string, IdempotencyKeyRequired | ValidationFailed> =>
  key === undefined || key.length === 0
    ? Effect.fail(new IdempotencyKeyRequired({ detail: "this endpoint requires an Idempotency-Key header" }))
    : key.length > maxIdempotencyKeyLength
      ? Effect.fail(
          new ValidationFailed({
            errors: [{ path: "Idempotency-Key", message: `must be 1 to ${maxIdempotencyKeyLength} characters` }],
            malformed: true,
          }),
        )
      : Effect.succeed(key);

/** What to do with a request whose key is already on record. */
export type IdempotencyDecision =
  | { readonly _tag: "Proceed" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "InProgress" };

/**
 * Decides from the record the store holds. With `now`, a record past its expiry or an
 * in-progress record past its lock may be taken over (Proceed); without it the record is
 * taken at face value. A different request hash is always a Mismatch while the record lives.
 */
export const decide = (existing: IdempotencyRecord, requestHash: string, now?: Date): IdempotencyDecision => {
  if (now !== undefined && now.getTime() >= existing.expiresAt.getTime()) return { _tag: "Proceed" };
  if (existing.requestHash !== requestHash) return { _tag: "Mismatch" };
  if (existing.state === "completed" && existing.response !== null) return { _tag: "Replay", response: existing.response };
  if (existing.state === "in_progress" && now !== undefined && now.getTime() >= existing.lockedUntil.getTime()) {
    return { _tag: "Proceed" };
  }
  return { _tag: "InProgress" };
};

// The store takes stale records over atomically; a Proceed seen here means the clocks raced,
// so reserving again a bounded number of times settles it.
const reserveAttempts = 3;

/**
 * Reserves (scope, key) and runs `onReserved` once the reservation is ours; a key already on
 * record is replayed, refused as reused, or answered in progress. The one decision loop of both
 * ways to run a request idempotently below.
 */
const underKey = <E, R>(
  req: IdempotentRequest,
  policy: Partial<IdempotencyPolicy> | undefined,
  onReserved: (store: IdempotencyStore) => Effect.Effect<StoredResponse, E, R>,
): Effect.Effect<
  { readonly response: StoredResponse; readonly replayed: boolean },
  E | IdempotencyKeyReused | IdempotencyRequestInProgress,
  R | IdempotencyStore
> =>
  Effect.gen(function* () {
    const { lockMs, ttlMs, retryAfterSeconds } = { ...defaultIdempotencyPolicy, ...policy };
    const store = yield* IdempotencyStore;
    // Made only when answered: an error captures a stack trace when it is constructed.
    const inProgress = () =>
      new IdempotencyRequestInProgress({
        retryAfterSeconds,
        detail: "a request with this Idempotency-Key is still being processed",
      });
    for (let attempt = 0; attempt < reserveAttempts; attempt++) {
      const millis = yield* Clock.currentTimeMillis;
      const now = new Date(millis);
      const reservation = yield* store.reserve({
        scope: req.scope,
        key: req.key,
        requestHash: req.requestHash,
        now,
        lockedUntil: new Date(millis + lockMs),
        expiresAt: new Date(millis + ttlMs),
      });
      if (reservation.reserved) return { response: yield* onReserved(store), replayed: false };
      const decision = decide(reservation.existing, req.requestHash, now);
      switch (decision._tag) {
        case "Replay":
          return { response: decision.response, replayed: true };
        case "Mismatch":
          return yield* Effect.fail(
            new IdempotencyKeyReused({ detail: "this Idempotency-Key was already used for a different request" }),
          );
        case "InProgress":
          return yield* Effect.fail(inProgress());
        case "Proceed":
          continue;
      }
    }
    return yield* Effect.fail(inProgress());
  });

/**
 * Runs `execute` at most once per reservation of (scope, key): reserve first, then execute;
 * on success store the response, on failure, defect or interruption release the key so a
 * retry may run. A key already on record is replayed, refused as reused, or answered in progress.
 * For work that is one transaction and calls nothing outside, {@link runIdempotentInTransaction}.
 */
export const runIdempotent = <E, R>(
  req: IdempotentRequest,
  execute: Effect.Effect<StoredResponse, E, R>,
  policy?: Partial<IdempotencyPolicy>,
): Effect.Effect<
  { readonly response: StoredResponse; readonly replayed: boolean },
  E | IdempotencyKeyReused | IdempotencyRequestInProgress,
  R | IdempotencyStore
> =>
  underKey(req, policy, (store) =>
    execute.pipe(
      // Finalizers run uninterruptibly: a reserved key is always completed or released.
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? store.complete({ scope: req.scope, key: req.key, response: exit.value })
          : store.release(req.scope, req.key),
      ),
    ),
  ).pipe(withSpan("Idempotency.runIdempotent"));

/**
 * `runIdempotent` for work that is one database transaction and calls nothing outside it (no
 * provider, no blob store, no other transaction it waits for): the reservation, the work and the
 * stored answer are one transaction. A crash can then never leave the work committed with its
 * key still in progress, which a retry after the lock would run a second time; and the request
 * pays one transaction instead of three.
 *
 * `work` runs behind a savepoint and `settle` turns its failures into stored answers (the 4xx a
 * caller may see again): a settled failure's writes are undone, its answer is stored. Any other
 * failure, a defect or an interruption rolls the whole transaction back, which releases the key.
 * A retry with the same key while the first runs does not see its reservation before it commits:
 * it waits for that transaction and is answered its replay. Without savepoints in the
 * Transactions adapter this is `runIdempotent(req, settle(work))`.
 */
export const runIdempotentInTransaction = <E, E2, R>(
  req: IdempotentRequest,
  work: Effect.Effect<StoredResponse, E, R>,
  settle: (work: Effect.Effect<StoredResponse, E, R>) => Effect.Effect<StoredResponse, E2, R>,
  policy?: Partial<IdempotencyPolicy>,
): Effect.Effect<
  { readonly response: StoredResponse; readonly replayed: boolean },
  E2 | IdempotencyKeyReused | IdempotencyRequestInProgress,
  R | IdempotencyStore | Transactions
> =>
  Effect.flatMap(Transactions, (transactions) => {
    const savepoint = transactions.savepoint;
    if (savepoint === undefined) return runIdempotent(req, settle(work), policy);
    return transactions.run(
      underKey(req, policy, (store) =>
        Effect.tap(settle(savepoint(work)), (response) => store.complete({ scope: req.scope, key: req.key, response })),
      ),
    );
  }).pipe(withSpan("Idempotency.runIdempotentInTransaction"));
