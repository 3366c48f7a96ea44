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
interface Pacing {
  readonly batchSize: number;
  readonly pollMs: number;
  readonly gatherMs: number;
}

/**
 * Repeats `pass` until `stopped` completes; waits only when a pass found less than a full batch,
 * until `pollMs` passes or a signal of `kind` arrives (signals during a pass coalesce into one
 * more pass). A signal within `gatherMs` of the previous pass's start waits out that window.
 */
const loop = <R>(
  name: string,
  kind: WorkKind,
  pass: Effect.Effect<number, never, R>,
  stopped: Deferred.Deferred<void>,
  { batchSize, pollMs, gatherMs }: Pacing,
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
    const wait = Effect.raceAll([Effect.sleep(pollMs), Effect.zipRight(signalled, gather), Deferred.await(stopped)]);
    while (!(yield* Deferred.isDone(stopped))) {
      passStarted = yield* Clock.currentTimeMillis;
      // An infrastructure failure (a defect from the storage edge) must not end the loop.
      const claimed = yield* pass.pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError(`${name} pass failed`).pipe(
                Effect.annotateLogs({ error: describeFailure(Cause.squash(cause)) }),
                Effect.as(0),
              ),
        ),
      );
      if (claimed < batchSize) yield* wait;
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
    options.runtime.runFork(loop("outbox relay", "outbox", relayPass, stopped, pacing)),
    options.runtime.runFork(loop("job runner", "jobs", jobPass, stopped, pacing)),
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
