/**
 * The durable job runner (architecture.md, Events and background work): claims due jobs, runs
 * the handler registered for their kind, and completes them or records the failure with a
 * backoff, dead-lettering after the job's bound. On Postgres the claim uses SKIP LOCKED, so
 * several runners on several machines never hold one job at once. While a handler runs, its
 * lease is extended every third of the lease, so a long job (an export, a thumbnail) is not
 * taken over by another runner; a runner that lost its lease stops extending it.
 */
import { Cause, Clock, Effect, Fiber } from "effect";
import { JobQueue, type Job } from "../../ports/Jobs.js";
import { defaultBackoff, retryAt } from "./Backoff.js";
import { describeFailure } from "./Consumer.js";
import { withSpan } from "../../core/kernel/Span.js";

/** Runs the jobs of one kind. */
export interface JobHandler<R = never> {
  readonly kind: string;
  readonly run: (job: Job) => Effect.Effect<void, unknown, R>;
}

/** Builds a handler (a typed identity, so `R` is inferred from `run`). */
export const makeJobHandler = <R>(handler: JobHandler<R>): JobHandler<R> => handler;

/** How one runner pass claims and retries; the attempt bound is each job's own `maxAttempts`. */
export interface JobRunnerOptions {
  readonly workerId: string;
  readonly batchSize?: number; // default 20
  readonly leaseMs?: number; // default 60 s
  /** Jobs of one batch run at once, so each finishes well within the lease (default batchSize). */
  readonly concurrency?: number;
  readonly baseMs?: number;
  readonly maxMs?: number;
}

/** What one pass did, for logs and tests. */
export interface JobPassResult {
  readonly claimed: number;
  readonly done: number;
  readonly retried: number;
  readonly dead: number;
  /** Jobs whose lease was lost before they finished (another runner took them over). */
  readonly lost: number;
}

/** Raised for a job whose kind has no registered handler, so it backs off and dead-letters visibly. */
export class UnknownJobKind extends Error {
  override readonly name = "UnknownJobKind";
  constructor(readonly kind: string) {
    super(`no handler is registered for job kind "${kind}"`);
  }
}

/** A registry of handlers by kind; registering one kind twice is a programming error. */
export const handlerRegistry = <R>(handlers: ReadonlyArray<JobHandler<R>>): ReadonlyMap<string, JobHandler<R>> => {
  const byKind = new Map<string, JobHandler<R>>();
  for (const handler of handlers) {
    if (byKind.has(handler.kind)) throw new Error(`two job handlers for kind "${handler.kind}"`);
    byKind.set(handler.kind, handler);
  }
  return byKind;
};

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms));

const defaultLeaseMs = 60_000;

/** Extends the lease every third of its length until interrupted or the lease is lost. */
const keepLease = (queue: JobQueue, jobId: string, workerId: string, leaseMs: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      yield* Effect.sleep(Math.max(1, Math.floor(leaseMs / 3)));
      const until = new Date((yield* Clock.currentTimeMillis) + leaseMs);
      if (!(yield* queue.extendLease(jobId, workerId, until))) return;
    }
  });

/** Runs one claimed job and records its outcome. */
export const runJob = <R>(
  handlers: ReadonlyMap<string, JobHandler<R>>,
  job: Job,
  options: JobRunnerOptions,
): Effect.Effect<"done" | "retried" | "dead" | "lost", never, R | JobQueue> =>
  Effect.gen(function* () {
    const queue = yield* JobQueue;
    const handler = handlers.get(job.kind);
    const work: Effect.Effect<void, unknown, R> =
      handler === undefined ? Effect.fail(new UnknownJobKind(job.kind)) : handler.run(job);
    const leaseMs = options.leaseMs ?? defaultLeaseMs;
    const heartbeat = yield* Effect.fork(keepLease(queue, job.id, options.workerId, leaseMs));
    const exit = yield* Effect.exit(work);
    yield* Fiber.interrupt(heartbeat);
    if (exit._tag === "Success") {
      return (yield* queue.complete(job.id, options.workerId)) ? ("done" as const) : ("lost" as const);
    }
    const error = describeFailure(Cause.squash(exit.cause));
    yield* Effect.logWarning("job failed").pipe(Effect.annotateLogs({ job_id: job.id, kind: job.kind, error }));
    const next = yield* retryAt({
      // The claim counted this attempt (so a crashed runner still moves towards the bound).
      attempts: Math.max(1, job.attempts),
      now: yield* nowDate,
      baseMs: options.baseMs ?? defaultBackoff.baseMs,
      maxMs: options.maxMs ?? defaultBackoff.maxMs,
      maxAttempts: job.maxAttempts,
    });
    const held = yield* queue.fail(job.id, options.workerId, { error, retryAt: next });
    if (!held) return "lost" as const;
    return next === null ? ("dead" as const) : ("retried" as const);
  }).pipe(withSpan("JobRunner.runJob", { attributes: { kind: job.kind } }));

/** One runner pass: claims due jobs and runs them. */
export const runJobsOnce = <R>(
  handlers: ReadonlyMap<string, JobHandler<R>> | ReadonlyArray<JobHandler<R>>,
  options: JobRunnerOptions,
): Effect.Effect<JobPassResult, never, R | JobQueue> =>
  Effect.gen(function* () {
    const registry: ReadonlyMap<string, JobHandler<R>> =
      handlers instanceof Map ? handlers : handlerRegistry(handlers as ReadonlyArray<JobHandler<R>>);
    const queue = yield* JobQueue;
    const batchSize = options.batchSize ?? 20;
    // No `kinds` filter: a job of an unknown kind is claimed and failed loudly, not left to rot.
    const jobs = yield* queue.claimDue({
      workerId: options.workerId,
      now: yield* nowDate,
      limit: batchSize,
      leaseMs: options.leaseMs ?? defaultLeaseMs,
    });
    const outcomes = yield* Effect.forEach(jobs, (job) => runJob(registry, job, options), {
      concurrency: options.concurrency ?? batchSize,
    });
    const counts = { claimed: jobs.length, done: 0, retried: 0, dead: 0, lost: 0 };
    for (const outcome of outcomes) counts[outcome] += 1;
    return counts;
  }).pipe(withSpan("JobRunner.runJobsOnce"));

/** Dead jobs, oldest first, for an operator to inspect. */
export const listDeadJobs = (limit = 100): Effect.Effect<ReadonlyArray<Job>, never, JobQueue> =>
  Effect.flatMap(JobQueue, (queue) => queue.listDead(limit));

/** Puts a dead job back to pending now, attempts reset; false if it was not dead. */
export const replayJob = (id: string): Effect.Effect<boolean, never, JobQueue> =>
  Effect.gen(function* () {
    const queue = yield* JobQueue;
    return yield* queue.replay(id, yield* nowDate);
  });
