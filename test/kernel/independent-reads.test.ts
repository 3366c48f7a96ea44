/** Independent reads: run at once, answered in argument order, failing as sequential code would. */
import { Deferred, Duration, Effect, Either } from "effect";
import t from "tap";
import { independentReads } from "../../core/kernel/IndependentReads.js";

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect));

t.test("the results come back in argument order, whatever order they finish in", async (t) => {
  const slow = Effect.as(Effect.sleep(Duration.millis(20)), "slow");
  const fast = Effect.succeed(42);
  const result = await run(independentReads(slow, fast, Effect.succeed(null)));
  t.same(result, Either.right(["slow", 42, null]));
});

t.test("the reads are in flight together: one waiting for the other does not wait forever", async (t) => {
  const result = await Effect.runPromise(
    Effect.gen(function* () {
      const gate = yield* Deferred.make<string>();
      // Run one after the other, the first read would wait for a gate only the second opens.
      const waiting = Deferred.await(gate);
      const opening = Effect.as(Deferred.succeed(gate, "opened"), "opener");
      return yield* independentReads(waiting, opening).pipe(Effect.timeout(Duration.seconds(2)), Effect.either);
    }),
  );
  t.same(result, Either.right(["opened", "opener"]));
});

t.test("the failure is the first read's in argument order, not the first to arrive", async (t) => {
  const late = Effect.zipRight(Effect.sleep(Duration.millis(20)), Effect.fail("first read failed" as const));
  const early = Effect.fail("second read failed" as const);
  t.same(await run(independentReads(late, early)), Either.left("first read failed"));
  t.same(await run(independentReads(Effect.succeed(1), early)), Either.left("second read failed"));
});

t.test("a read that fails does not cut short the ones beside it (they are reads: their results are dropped)", async (t) => {
  let finished = 0;
  const counted = Effect.map(Effect.sleep(Duration.millis(10)), () => (finished += 1));
  const result = await run(independentReads(Effect.fail("no" as const), counted, counted));
  t.same(result, Either.left("no"));
  t.equal(finished, 2, "both other reads ran to the end");
});
