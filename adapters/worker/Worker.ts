/**
 * The background worker: the outbox relay and the job runner, each looping on its own fiber
 * until stopped. Runs in-process with the server or alone (`domainkit worker`); the host wires
 * the runtime, this file only runs the loops. Between passes a loop sleeps `pollMs` unless the
 * runtime's WorkSignals say a commit made work due, so delivery does not wait for the poll;
 * polling stays as the safety net for missed signals and for work that becomes due later.
 *
 * Under a steady stream of writes every commit signals, and a loop that answered each signal at
 * once would relay one event per pass, paying a pass's fixed cost (the claim, a transaction per
 * consumer, the completion) on every write. So a signal that arrives less than `gatherMs` after
 * the previous pass started waits out the rest of that window, and the events committed
 * meanwhile are claimed as one batch. An isolated write (nothing relayed in the last `gatherMs`)
 * is picked up at once.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Cause, Clock, Deferred, Effect, Fiber, Option, type ManagedRuntime } from "effect";
import type { JobQueue } from "../../ports/Jobs.js";
import { WorkSignals, type WorkKind } from "../../ports/WorkSignals.js";
import { defaultBackoff, type BackoffPolicy } from "./Backoff.js";
import { describeFailure, type Consumer } from "./Consumer.js";
import { handlerRegistry, runJobsOnce, type JobHandler } from "./JobRunner.js";
import { relayOnce, type RelayServices } from "./OutboxRelay.js";

/** What the worker runs and how often. */
export interface WorkerOptions<R> {
  /** Provides the storage ports and whatever the consumers and handlers need. */
  readonly runtime: ManagedRuntime.ManagedRuntime<R | RelayServices | JobQueue, unknown>;
  readonly consumers: ReadonlyArray<Consumer<R>>;
  readonly jobHandlers: ReadonlyArray<JobHandler<R>>;
  /** Names this worker's leases; unique per process (default host:pid:random). */
  readonly workerId?: string;
  /**
   * Longest sleep between passes that found less than a full batch (default 250 ms); a signal
   * from the runtime's WorkSignals (when it provides them) ends the sleep at once.
   */
  readonly pollMs?: number;
  /**
   * Shortest time between the starts of two passes woken by signals (default 25 ms): writes
   * arriving back-to-back within it are relayed as one batch (see the file comment). 0 answers
   * every signal at once.
   */
  readonly gatherMs?: number;
  readonly batchSize?: number; // default 50
  readonly leaseMs?: number; // default 60 s
  /** Outbox retry spacing and bound (jobs carry their own bound). */
  readonly backoff?: BackoffPolicy;
}

/** A running worker. */
export interface RunningWorker {
  readonly workerId: string;
  /** Stops after the pass in progress finishes; resolves when both loops have ended. */
  readonly stop: () => Promise<void>;
}

/** How a loop paces its passes. */
export interface Pacing {
  readonly batchSize: number;
  readonly pollMs: number;
  readonly gatherMs: number;
  /** The wait after a failed pass, doubling per failure in a row up to `maxMs` (default 250 ms to 30 s). */
  readonly failureBackoff?: { readonly baseMs: number; readonly maxMs: number };
}

/**
 * The wait after failed passes (the database down, typically): 250 ms doubling to 30 s, so an
 * outage costs a pass (and a log line) per step instead of one every poll; the first good pass
 * resets it.
 */
export const defaultFailureBackoff = { baseMs: 250, maxMs: 30_000 } as const;

/**
 * Repeats `pass` until `stopped` completes; waits only when a pass found less than a full batch,
 * until `pollMs` passes or a signal of `kind` arrives (signals during a pass coalesce into one
 * more pass). A signal within `gatherMs` of the previous pass's start waits out that window.
 *
 * A failed pass (an infrastructure defect: the database unreachable) does not end the loop: the
 * next one waits `failureBackoff` (doubling per failure in a row), or less when a signal arrives
 * (a commit is proof the database answers again). The first failure is logged with its cause,
 * then one line per backoff step with the count of failures in a row, and one line when a pass
 * succeeds again, which resets the backoff (signals wake the loop at once again).
 */
export const workerLoop = <R>(
  name: string,
  kind: WorkKind,
  pass: Effect.Effect<number, never, R>,
  stopped: Deferred.Deferred<void>,
  { batchSize, pollMs, gatherMs, failureBackoff = defaultFailureBackoff }: Pacing,
): Effect.Effect<void, never, R> =>
  Effect.gen(function* () {
    const signals = yield* Effect.serviceOption(WorkSignals);
    // Listening before the first pass, so a commit made during any pass still wakes the next.
    const signalled = Option.isSome(signals) ? yield* signals.value.listen(kind) : Effect.never;
    let passStarted = 0;
    // After a signal: the rest of the gathering window, unless stopping.
    const gather = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const rest = passStarted + gatherMs - now;
      return rest > 0 ? Effect.raceFirst(Effect.sleep(rest), Deferred.await(stopped)) : Effect.void;
    });
    const waitFor = (ms: number) => Effect.raceAll([Effect.sleep(ms), Effect.zipRight(signalled, gather), Deferred.await(stopped)]);
    const wait = waitFor(pollMs);
    // Failed passes in a row, and when the last failure line was written.
    let failures = 0;
    let lastLine = 0;
    while (!(yield* Deferred.isDone(stopped))) {
      passStarted = yield* Clock.currentTimeMillis;
      // An infrastructure failure (a defect from the storage edge) must not end the loop.
      const outcome = yield* pass.pipe(
        Effect.map((claimed) => ({ claimed, failure: undefined as unknown })),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.succeed({ claimed: 0, failure: Cause.squash(cause) as unknown }),
        ),
      );
      if (outcome.failure === undefined) {
        if (failures > 0) {
          yield* Effect.logInfo(`${name} pass succeeded again after ${failures} failed pass${failures === 1 ? "" : "es"}`).pipe(
            Effect.annotateLogs({ failed_passes: failures }),
          );
          failures = 0;
        }
        if (outcome.claimed < batchSize) yield* wait;
        continue;
      }
      failures += 1;
      const delay = Math.min(failureBackoff.maxMs, failureBackoff.baseMs * 2 ** Math.min(failures - 1, 30));
      // One line per step: the first failure, then each failure that followed a full backoff wait
      // (failures after a wait a signal cut short only add to the count).
      const now = passStarted;
      const previousDelay = Math.min(failureBackoff.maxMs, failureBackoff.baseMs * 2 ** Math.min(Math.max(failures - 2, 0), 30));
      if (failures === 1 || now - lastLine >= previousDelay) {
        lastLine = now;
        const message =
          failures === 1
            ? `${name} pass failed; retrying in ${delay} ms`
            : `${name} pass failed again (${failures} failed passes in a row); retrying in ${delay} ms`;
        yield* Effect.logError(message).pipe(
          Effect.annotateLogs({ error: describeFailure(outcome.failure), failed_passes: failures, retry_in_ms: delay }),
        );
      }
      yield* waitFor(delay);
    }
  }).pipe(Effect.scoped, Effect.catchAllCause(() => Effect.void));

/** Starts the relay loop and the job loop on forked fibers. */
export const startWorker = <R>(options: WorkerOptions<R>): RunningWorker => {
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const batchSize = options.batchSize ?? 50;
  const leaseMs = options.leaseMs ?? 60_000;
  const pacing: Pacing = { batchSize, pollMs: options.pollMs ?? 250, gatherMs: options.gatherMs ?? 25 };
  const registry = handlerRegistry(options.jobHandlers);
  const stopped = Effect.runSync(Deferred.make<void>());

  const relayPass = relayOnce(options.consumers, {
    workerId,
    batchSize,
    leaseMs,
    backoff: options.backoff ?? defaultBackoff,
  }).pipe(Effect.map((r) => r.claimed));
  const jobPass = runJobsOnce(registry, { workerId, batchSize, leaseMs }).pipe(Effect.map((r) => r.claimed));

  const fibers = [
    options.runtime.runFork(workerLoop("outbox relay", "outbox", relayPass, stopped, pacing)),
    options.runtime.runFork(workerLoop("job runner", "jobs", jobPass, stopped, pacing)),
  ];
  let stopping: Promise<void> | undefined;
  return {
    workerId,
    stop: () => {
      stopping ??= (async () => {
        Effect.runSync(Deferred.succeed(stopped, undefined));
        await Effect.runPromise(Fiber.awaitAll(fibers));
      })();
      return stopping;
    },
  };
};
