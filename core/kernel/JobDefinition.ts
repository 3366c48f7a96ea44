/**
 * A durable job, declared once by the module that owns it (docs/architecture.md, Events and
 * background work): its kind, the Schema of its payload and what it does. Scheduling encodes
 * the payload with that Schema and the worker decodes it before `handle` runs, so a payload is
 * never cast; one that does not decode fails the attempt (and dead-letters after the bound).
 */
import { Effect, ParseResult, Schema } from "effect";
import { Jobs, type Job } from "../../ports/Jobs.js";

/** When and how to schedule one job. */
export interface ScheduleOptions {
  readonly runAt: Date;
  /** Unique among unfinished jobs of this kind: scheduling again returns the existing job. */
  readonly key?: string;
  readonly maxAttempts?: number;
}

/** What a module writes. */
export interface JobSpecification<P, I, R> {
  /** Globally unique, `<module>.<name>` by convention. */
  readonly kind: string;
  readonly payload: Schema.Schema<P, I, never>;
  readonly handle: (payload: P, job: Job) => Effect.Effect<void, unknown, R>;
}

/** A job as hosts and workers see it: `run` decodes then handles; `schedule` encodes. */
export interface JobDefinition<P, R> {
  readonly kind: string;
  readonly run: (job: Job) => Effect.Effect<void, unknown, R>;
  readonly schedule: (payload: P, options: ScheduleOptions) => Effect.Effect<Job, never, Jobs>;
}

/** A payload that does not fit its job's Schema (a bug or an old job shape). */
export class JobPayloadInvalid extends Error {
  override readonly name = "JobPayloadInvalid";
}

/**
 * A job's kind and payload without its handler: for a job whose own handling schedules it again
 * (a re-check), declared in a file of its own so the use case and the handler do not import each
 * other. `handledBy` completes it into the definition a worker runs.
 */
export interface JobType<P, I> {
  readonly kind: string;
  readonly payload: Schema.Schema<P, I, never>;
  readonly schedule: (payload: P, options: ScheduleOptions) => Effect.Effect<Job, never, Jobs>;
  readonly handledBy: <R>(handle: (payload: P, job: Job) => Effect.Effect<void, unknown, R>) => JobDefinition<P, R>;
}

/** Declares a job's kind and payload (see {@link JobType}). */
export const defineJobType = <P, I>(spec: { readonly kind: string; readonly payload: Schema.Schema<P, I, never> }): JobType<P, I> => {
  const decode = Schema.decodeUnknown(spec.payload);
  const encode = Schema.encodeSync(spec.payload);
  const schedule = (payload: P, options: ScheduleOptions): Effect.Effect<Job, never, Jobs> =>
    Effect.flatMap(Jobs, (jobs) =>
      jobs.schedule({
        kind: spec.kind,
        payload: encode(payload),
        runAt: options.runAt,
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      }),
    );
  return {
    kind: spec.kind,
    payload: spec.payload,
    schedule,
    handledBy: (handle) => ({
      kind: spec.kind,
      run: (job) =>
        decode(job.payload).pipe(
          Effect.mapError(
            (error) => new JobPayloadInvalid(`job ${job.id} (${spec.kind}): ${ParseResult.TreeFormatter.formatErrorSync(error)}`),
          ),
          Effect.flatMap((payload) => handle(payload, job)),
        ),
      schedule,
    }),
  };
};

/** Declares a job. */
export const defineJob = <P, I, R>(spec: JobSpecification<P, I, R>): JobDefinition<P, R> =>
  defineJobType({ kind: spec.kind, payload: spec.payload }).handledBy(spec.handle);
