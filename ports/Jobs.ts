/**
 * Durable timers and jobs (architecture.md, Events and background work): rows with a due time,
 * claimed by workers, retried with backoff, dead-lettered after a bound, replayable.
 */
import { Context, Effect } from "effect";

/** What to run and when. A `key` makes the job unique among unfinished jobs of its kind. */
export interface JobSpec {
  readonly kind: string;
  readonly key?: string;
  readonly payload: unknown;
  readonly runAt: Date;
  readonly maxAttempts?: number; // default 16
}

export type JobStatus = "pending" | "running" | "done" | "dead" | "cancelled";

export interface Job {
  /** Sorts in the order jobs were scheduled; at most 100 characters (route ids). */
  readonly id: string;
  readonly kind: string;
  readonly key: string | null;
  readonly payload: unknown;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly runAt: Date;
  readonly lastError: string | null;
}

/** The scheduling side, used by cores inside their transactions. */
export interface Jobs {
  /**
   * Schedules a job. With a `key`, scheduling again while an unfinished job of that kind and
   * key exists returns the existing job unchanged.
   */
  readonly schedule: (spec: JobSpec) => Effect.Effect<Job>;
  /** Cancels the unfinished job of that kind and key; false if there was none. */
  readonly cancel: (kind: string, key: string) => Effect.Effect<boolean>;
}
export const Jobs = Context.GenericTag<Jobs>("domainkit/Jobs");

/** The worker side. */
export interface JobQueue {
  /**
   * Claims up to `limit` due jobs (pending with runAt <= now, or running with an expired lease),
   * marks them running and leases them to `workerId` until `now + leaseMs`. On Postgres this
   * uses FOR UPDATE SKIP LOCKED: two workers never hold the same job at once. Each claim counts
   * an attempt (`attempts + 1`), a takeover of an expired lease too.
   */
  readonly claimDue: (opts: {
    readonly workerId: string;
    readonly now: Date;
    readonly limit: number;
    readonly leaseMs: number;
    readonly kinds?: ReadonlyArray<string>;
  }) => Effect.Effect<ReadonlyArray<Job>>;
  /**
   * Extends `workerId`'s lease of a running job to `until` (a long handler's heartbeat); false
   * if it no longer holds the job (its lease expired and another worker took it over).
   */
  readonly extendLease: (id: string, workerId: string, until: Date) => Effect.Effect<boolean>;
  /** Marks a job done; false if `workerId` no longer holds it. */
  readonly complete: (id: string, workerId: string) => Effect.Effect<boolean>;
  /** Records a failed attempt: retried at `retryAt`, or dead when null; false if not held. */
  readonly fail: (
    id: string,
    workerId: string,
    failure: { readonly error: string; readonly retryAt: Date | null },
  ) => Effect.Effect<boolean>;
  /**
   * Dead jobs, oldest first by id (the order they were scheduled in), strictly after the job id
   * `afterId` when given (keyset pages), at most `limit`; only jobs of `kinds` when given (a
   * module's own dead-letter page).
   */
  readonly listDead: (limit: number, kinds?: ReadonlyArray<string>, afterId?: string) => Effect.Effect<ReadonlyArray<Job>>;
  /** Puts a dead job back to pending with attempts reset; false if it was not dead. */
  readonly replay: (id: string, now: Date) => Effect.Effect<boolean>;
  /** Reads one job. */
  readonly get: (id: string) => Effect.Effect<Job | null>;
  /**
   * Retention: deletes up to `limit` finished jobs (done or cancelled) last changed before
   * `before`, and answers how many. Dead jobs stay: an operator replays or inspects them. A job's
   * last change is the adapter's own clock (`complete`, `fail` and `cancel` take no time).
   */
  readonly purgeFinished: (before: Date, limit: number) => Effect.Effect<number>;
}
export const JobQueue = Context.GenericTag<JobQueue>("domainkit/JobQueue");
