/** Idempotency: reserve before side effects; replay finished requests; refuse reuse; report in-flight. */
import { Cause, Clock, Data, Deferred, Effect, Either, Exit, Fiber, TestClock, TestContext } from "effect";
import fc from "fast-check";
import t from "tap";
import { IdempotencyStore, type IdempotencyRecord, type StoredResponse } from "../../ports/IdempotencyStore.js";
import { IdempotencyKeyReused, IdempotencyRequestInProgress } from "../../core/kernel/Errors.js";
import * as Idempotency from "../../core/kernel/Idempotency.js";
import { makeInMemoryIdempotencyStore } from "./support/InMemoryIdempotencyStore.js";
import { breaks, holds, runEither } from "./support/properties.js";

class Boom extends Data.TaggedError("Boom")<{}> {}

type Run = (
  req: Idempotency.IdempotentRequest,
  execute: Effect.Effect<StoredResponse, Boom>,
) => Effect.Effect<{ readonly response: StoredResponse; readonly replayed: boolean }, unknown, IdempotencyStore>;

const test = <A, E>(program: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(program.pipe(Effect.provide(TestContext.TestContext)) as Effect.Effect<A, E>);

const frozenClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => 0,
  currentTimeMillis: Effect.succeed(0),
  unsafeCurrentTimeNanos: () => 0n,
  currentTimeNanos: Effect.succeed(0n),
  sleep: () => Effect.void,
};

const req = (requestHash: string, key = "key-1"): Idempotency.IdempotentRequest => ({ scope: "account:1", key, requestHash });
const created = (body: unknown): StoredResponse => ({ status: 201, body });

const request = fc.record({
  hash: fc.constantFrom("a", "b", "c"),
  outcome: fc.constantFrom("ok", "ok", "fail", "die"),
  delay: fc.nat({ max: 4 }),
  work: fc.nat({ max: 4 }),
});

// Any interleaving of requests under one key: execute runs exactly once per successful
// reservation (never without one), at most one response is stored, and every replay returns
// that first stored response to a request with the same hash.
const executesOncePerReservation = (run: Run) =>
  fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), (requests) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const memory = yield* makeInMemoryIdempotencyStore;
        let executions = 0;
        const exits = yield* Effect.all(
          requests.map((r) =>
            Effect.repeatN(Effect.yieldNow(), r.delay).pipe(
              Effect.zipRight(
                Effect.exit(
                  run(
                    req(r.hash),
                    Effect.gen(function* () {
                      executions++;
                      const n = executions;
                      yield* Effect.repeatN(Effect.yieldNow(), r.work);
                      if (r.outcome === "fail") return yield* Effect.fail(new Boom());
                      if (r.outcome === "die") return yield* Effect.die("boom");
                      return created({ hash: r.hash, n });
                    }),
                  ),
                ),
              ),
              Effect.map((exit) => ({ hash: r.hash, exit })),
            ),
          ),
          { concurrency: "unbounded" },
        ).pipe(Effect.provide(memory.layer));
        const log = yield* memory.log;
        const record = (yield* memory.records).values().next().value as IdempotencyRecord | undefined;
        const successes = exits.flatMap(({ hash, exit }) => (Exit.isSuccess(exit) ? [{ hash, ...exit.value }] : []));
        const fresh = successes.filter((s) => !s.replayed);
        const replays = successes.filter((s) => s.replayed);
        if (log.reservations < 1 || executions !== log.reservations || log.completions > 1 || fresh.length !== log.completions) {
          return false;
        }
        if (fresh.length === 0) return replays.length === 0;
        const first = fresh[0]!;
        return (
          record?.state === "completed" &&
          JSON.stringify(record.response) === JSON.stringify(first.response) &&
          replays.every((r) => r.hash === record.requestHash && JSON.stringify(r.response) === JSON.stringify(first.response))
        );
        // A frozen clock: no lock can expire during a run, so every overlap is a real conflict.
      }).pipe(Effect.withClock(frozenClock)),
    ),
  );

t.test("for any interleaving under one key, execute runs once per reservation and replays return the first response", async (t) => {
  await holds(t, executesOncePerReservation(Idempotency.runIdempotent));
});

t.test("mutant: running execute when the key is in progress is caught", async (t) => {
  const eager: Run = (r, execute) =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore;
      const now = new Date(0);
      const reserved = yield* store.reserve({ ...r, now, lockedUntil: new Date(60_000), expiresAt: new Date(86_400_000) });
      if (!reserved.reserved) {
        const decision = Idempotency.decide(reserved.existing, r.requestHash);
        if (decision._tag === "Replay") return { response: decision.response, replayed: true };
        if (decision._tag === "Mismatch") return yield* Effect.fail(new IdempotencyKeyReused({}));
      }
      const response = yield* execute.pipe(
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? store.complete({ scope: r.scope, key: r.key, response: exit.value }) : store.release(r.scope, r.key),
        ),
      );
      return { response, replayed: false };
    });
  await breaks(t, executesOncePerReservation(eager));
});

t.test("the same request is replayed with the stored response and execute runs once", async (t) => {
  await test(
    Effect.gen(function* () {
      const memory = yield* makeInMemoryIdempotencyStore;
      let executions = 0;
      const execute = Effect.sync(() => created({ order: ++executions }));
      const first = yield* Idempotency.runIdempotent(req("h"), execute).pipe(Effect.provide(memory.layer));
      const second = yield* Idempotency.runIdempotent(req("h"), execute).pipe(Effect.provide(memory.layer));
      t.same(first, { response: created({ order: 1 }), replayed: false });
      t.same(second, { response: created({ order: 1 }), replayed: true });
      t.equal(executions, 1);
      const other = yield* Effect.either(Idempotency.runIdempotent(req("other"), execute).pipe(Effect.provide(memory.layer)));
      t.ok(Either.isLeft(other) && other.left instanceof IdempotencyKeyReused);
      if (Either.isLeft(other) && other.left instanceof IdempotencyKeyReused) {
        t.equal(other.left.code, "idempotency_key_reused");
        t.equal(other.left.category, "unprocessable");
      }
      const otherKey = yield* Idempotency.runIdempotent(req("other", "key-2"), execute).pipe(Effect.provide(memory.layer));
      t.equal(otherKey.replayed, false);
      t.equal(executions, 2);
    }),
  );
});

t.test("the key is reserved from the clock before execute runs, with the policy's lock and expiry", async (t) => {
  await test(
    Effect.gen(function* () {
      const memory = yield* makeInMemoryIdempotencyStore;
      yield* TestClock.setTime(1_000_000);
      let seen: IdempotencyRecord | undefined;
      const execute = Effect.gen(function* () {
        seen = (yield* memory.records).values().next().value;
        return created("ok");
      });
      yield* Idempotency.runIdempotent(req("h"), execute, { lockMs: 5_000, ttlMs: 10_000 }).pipe(Effect.provide(memory.layer));
      t.equal(seen?.state, "in_progress");
      t.equal(seen?.lockedUntil.getTime(), 1_005_000);
      t.equal(seen?.expiresAt.getTime(), 1_010_000);
      const stored = (yield* memory.records).values().next().value;
      t.equal(stored?.state, "completed");
      t.same(Idempotency.defaultIdempotencyPolicy, { lockMs: 60_000, ttlMs: 86_400_000, retryAfterSeconds: 1 });
    }),
  );
});

t.test("a retry while the first request runs answers in progress with Retry-After; after the lock expires it takes over", async (t) => {
  await test(
    Effect.gen(function* () {
      const memory = yield* makeInMemoryIdempotencyStore;
      yield* TestClock.setTime(10_000);
      yield* memory.seed({
        ...req("h"),
        state: "in_progress",
        response: null,
        lockedUntil: new Date(20_000),
        expiresAt: new Date(10_000 + 86_400_000),
      });
      let executions = 0;
      const execute = Effect.sync(() => created(++executions));
      const busy = yield* Effect.either(
        Idempotency.runIdempotent(req("h"), execute, { retryAfterSeconds: 7 }).pipe(Effect.provide(memory.layer)),
      );
      t.ok(Either.isLeft(busy) && busy.left instanceof IdempotencyRequestInProgress);
      if (Either.isLeft(busy) && busy.left instanceof IdempotencyRequestInProgress) {
        t.equal(busy.left.retryAfterSeconds, 7);
        t.equal(busy.left.code, "idempotency_request_in_progress");
        t.equal(busy.left.category, "conflict");
      }
      t.equal(executions, 0);
      yield* TestClock.setTime(20_000);
      const taken = yield* Idempotency.runIdempotent(req("h"), execute).pipe(Effect.provide(memory.layer));
      t.same(taken, { response: created(1), replayed: false });
    }),
  );
});

t.test("a failure, a defect or an interruption releases the key so a retry runs", async (t) => {
  await test(
    Effect.gen(function* () {
      const memory = yield* makeInMemoryIdempotencyStore;
      const run = <E>(execute: Effect.Effect<StoredResponse, E>) =>
        Idempotency.runIdempotent(req("h"), execute).pipe(Effect.provide(memory.layer));

      const failed = yield* Effect.exit(run(Effect.fail(new Boom())));
      t.ok(Exit.isFailure(failed) && Cause.failureOption(failed.cause)._tag === "Some", "the typed failure propagates");
      t.equal((yield* memory.records).size, 0, "released after a failure");

      const died = yield* Effect.exit(run(Effect.die("boom")));
      t.ok(Exit.isFailure(died) && Cause.isDie(died.cause), "the defect propagates");
      t.equal((yield* memory.records).size, 0, "released after a defect");

      const started = yield* Deferred.make<void>();
      const fiber = yield* Effect.fork(run(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)));
      yield* Deferred.await(started);
      t.equal((yield* memory.records).size, 1, "reserved while running");
      yield* Fiber.interrupt(fiber);
      t.equal((yield* memory.records).size, 0, "released after an interruption");

      const retried = yield* run(Effect.succeed(created("second try")));
      t.same(retried, { response: created("second try"), replayed: false });
      t.same(yield* memory.log, { reservations: 4, completions: 1, releases: 3 });
    }),
  );
});

t.test("an Idempotency-Key is required and must be 1 to 255 characters", async (t) => {
  for (const missing of [undefined, ""]) {
    const result = runEither(Idempotency.validateIdempotencyKey(missing));
    t.ok(Either.isLeft(result) && result.left._tag === "IdempotencyKeyRequired" && result.left.code === "idempotency_key_required");
  }
  await holds(
    t,
    fc.property(fc.string({ minLength: 1, maxLength: 400 }), (key) => {
      const result = runEither(Idempotency.validateIdempotencyKey(key));
      return key.length <= 255
        ? Either.isRight(result) && result.right === key
        : Either.isLeft(result) && result.left._tag === "ValidationFailed" && result.left.category === "bad_request";
    }),
  );
});

t.test("decide replays a finished request, refuses another hash and reports one in flight", async (t) => {
  const record = fc.record({
    requestHash: fc.constantFrom("a", "b"),
    state: fc.constantFrom("in_progress" as const, "completed" as const),
    lockedUntil: fc.integer({ min: 0, max: 100 }),
    expiresAt: fc.integer({ min: 0, max: 100 }),
  });
  await holds(
    t,
    fc.property(record, fc.constantFrom("a", "b"), fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }), (r, hash, now) => {
      const existing: IdempotencyRecord = {
        ...req(r.requestHash),
        state: r.state,
        response: r.state === "completed" ? created(r.requestHash) : null,
        lockedUntil: new Date(r.lockedUntil),
        expiresAt: new Date(r.expiresAt),
      };
      const decision = Idempotency.decide(existing, hash, now === undefined ? undefined : new Date(now));
      if (now !== undefined && now >= r.expiresAt) return decision._tag === "Proceed";
      if (hash !== r.requestHash) return decision._tag === "Mismatch";
      if (r.state === "completed") return decision._tag === "Replay" && decision.response.body === hash;
      if (now !== undefined && now >= r.lockedUntil) return decision._tag === "Proceed";
      return decision._tag === "InProgress";
    }),
  );
});
