/**
 * Worker loop under a failing dependency: after a failed pass the loop backs off (250 ms doubling
 * to 30 s, not a pass every poll), logs the first failure and then one line per backoff step with
 * the count of failures in a row, and the first good pass resets it: polling and work signals are
 * prompt again. A signal (a commit: the database answers) ends a backoff wait at once.
 * The clock is Effect's TestClock: no wall time, passes and log lines are counted.
 */
import t from "tap";
import { Deferred, Effect, HashMap, Layer, Logger, Queue, type Scope, TestClock, TestContext } from "effect";
import { WorkSignals, type WorkKind } from "../../ports/WorkSignals.js";
import { workerLoop } from "../../adapters/worker/Worker.js";

interface Line {
  readonly level: string;
  readonly message: string;
  readonly annotations: Record<string, unknown>;
}

/** A pass over a fake dependency that fails (a defect, as the storage edge dies) while `down`. */
const fakeDependency = () => {
  const state = { down: true, passes: 0 };
  const pass = Effect.suspend(() => {
    state.passes += 1;
    return state.down ? Effect.die(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })) : Effect.succeed(0);
  });
  return { state, pass };
};

const capture = (lines: Line[]) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message, annotations }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message);
      lines.push({ level: logLevel.label, message: text, annotations: Object.fromEntries(HashMap.toEntries(annotations)) });
    }),
  );

// Lets the forked loop run until it waits again (no time passes).
const settle = Effect.repeatN(Effect.yieldNow(), 50);

const run = <A>(program: Effect.Effect<A, never, Scope.Scope>, lines: Line[]): Promise<A> =>
  Effect.runPromise(program.pipe(Effect.provide(Layer.merge(TestContext.TestContext, capture(lines))), Effect.scoped));

t.test("a failing pass backs off 250 ms doubling to 30 s, logs one line per step with a count, and the first good pass resets it", async (t) => {
  const lines: Line[] = [];
  const { state, pass } = fakeDependency();
  await run(
    Effect.gen(function* () {
      const stopped = yield* Deferred.make<void>();
      yield* Effect.forkScoped(workerLoop("outbox relay", "outbox" as WorkKind, pass, stopped, { batchSize: 10, pollMs: 250, gatherMs: 0 }));
      yield* settle;
      t.equal(state.passes, 1, "the first pass failed");
      t.equal(lines.length, 1, "the first failure is logged");
      t.match(lines[0], { level: "ERROR", message: /outbox relay pass failed; retrying in 250 ms/, annotations: { error: /ECONNREFUSED/, failed_passes: 1 } });
      yield* TestClock.adjust(249);
      yield* settle;
      t.equal(state.passes, 1, "no pass before the backoff ends");
      yield* TestClock.adjust(1);
      yield* settle;
      t.equal(state.passes, 2, "the next pass after 250 ms");
      // Each later wait doubles, up to 30 s.
      const waits = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];
      for (const [i, ms] of waits.entries()) {
        yield* TestClock.adjust(ms - 1);
        yield* settle;
        t.equal(state.passes, 2 + i, `no pass during the ${ms} ms wait`);
        yield* TestClock.adjust(1);
        yield* settle;
        t.equal(state.passes, 3 + i, `a pass after ${ms} ms`);
      }
      // 121.5 s of outage: 11 passes where a pass every poll would have made 487.
      t.equal(state.passes, 11);
      t.equal(lines.length, 11, "one line per backoff step, not one per poll");
      t.match(lines[10], { level: "ERROR", message: /pass failed again \(11 failed passes in a row\); retrying in 30000 ms/, annotations: { failed_passes: 11, retry_in_ms: 30_000 } });

      state.down = false;
      yield* TestClock.adjust(30_000);
      yield* settle;
      t.equal(state.passes, 12, "the dependency is back: the pass succeeds");
      t.match(lines[11], { level: "INFO", message: /outbox relay pass succeeded again after 11 failed passes/ });
      yield* TestClock.adjust(250);
      yield* settle;
      t.equal(state.passes, 13, "the backoff is reset: the next pass comes after the 250 ms poll");
      t.equal(lines.length, 12, "no more lines once it works");
      yield* Deferred.succeed(stopped, undefined);
    }),
    lines,
  );
});

t.test("a work signal ends a backoff wait, and once a pass succeeds signals wake the loop at once again", async (t) => {
  const lines: Line[] = [];
  const { state, pass } = fakeDependency();
  await run(
    Effect.gen(function* () {
      const commits = yield* Queue.unbounded<void>();
      const signals: WorkSignals = { notify: () => Queue.offer(commits, undefined), listen: () => Effect.succeed(Queue.take(commits)) };
      const stopped = yield* Deferred.make<void>();
      // A poll of a minute: only signals can explain a prompt pass below.
      const loop = workerLoop("job runner", "jobs", pass, stopped, { batchSize: 10, pollMs: 60_000, gatherMs: 0 });
      yield* Effect.forkScoped(Effect.provideService(loop, WorkSignals, signals));
      yield* settle;
      yield* TestClock.adjust(250);
      yield* settle;
      t.equal(state.passes, 2, "two failed passes; the next waits 500 ms");
      state.down = false;
      yield* signals.notify("jobs");
      yield* settle;
      t.equal(state.passes, 3, "a commit's signal ends the backoff wait at once");
      t.match(lines.at(-1), { level: "INFO", message: /job runner pass succeeded again after 2 failed passes/ });
      yield* signals.notify("jobs");
      yield* settle;
      t.equal(state.passes, 4, "after the good pass a signal wakes the loop at once");
      yield* Deferred.succeed(stopped, undefined);
      yield* settle;
    }),
    lines,
  );
});
