/**
 * An in-memory Jobs + JobQueue pair, the second example of examples/custom-adapter/README.md: two
 * ports over one store (the scheduling side the cores use and the worker side), proved with
 * `jobsSuite` (test/examples/custom-jobs-adapter.test.ts). Written from the port's documentation
 * (ports/Jobs.ts) and the kit alone. One process, forgotten on restart, and outside the database
 * transaction: see the README's "Ports that commit with the domain's rows" before binding it.
 */
import { Context, Effect, Layer } from "effect";
import { JobQueue, Jobs, type Job, type JobSpec } from "domainkit/ports";

/** A job as stored: the port's view plus who holds it until when, and when it last changed. */
interface StoredJob {
  job: Job;
  workerId: string | null;
  leaseUntil: number;
  changedAt: number;
}

const unfinished = (job: Job) => job.status === "pending" || job.status === "running";

/** Builds one store and both ports over it. */
export const makeMemoryJobs = (): { readonly jobs: Jobs; readonly queue: JobQueue } => {
  const store = new Map<string, StoredJob>();
  let sequence = 0;
  // Ids sort in the order jobs were scheduled (listDead pages by id; the dead-letter routes carry
  // them as `:id`, at most 100 characters), UUID-shaped like the SQL adapter's: the wall clock's
  // milliseconds, then a counter.
  const nextId = (): string => {
    const ms = Date.now().toString(16).padStart(12, "0");
    return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7000-8000-${(++sequence).toString(16).padStart(12, "0")}`;
  };
  // `complete`, `fail` and `cancel` take no time: a job's last change is on the adapter's own clock.
  const change = (stored: StoredJob, job: Partial<Job>, lease: { workerId: string | null; leaseUntil: number } = { workerId: null, leaseUntil: 0 }) => {
    stored.job = { ...stored.job, ...job };
    stored.workerId = lease.workerId;
    stored.leaseUntil = lease.leaseUntil;
    stored.changedAt = Date.now();
  };
  const held = (id: string, workerId: string): StoredJob | undefined => {
    const stored = store.get(id);
    return stored?.job.status === "running" && stored.workerId === workerId ? stored : undefined;
  };
  // Payloads are copied in and out, as a database would: the caller's later changes never leak in.
  const copy = (job: Job): Job => ({ ...job, payload: structuredClone(job.payload) });

  // Every method is one synchronous step, so concurrent fibers never interleave inside one:
  // one job per key, and no job held by two workers.
  const jobs: Jobs = {
    schedule: (spec: JobSpec) =>
      Effect.sync(() => {
        if (spec.key !== undefined) {
          for (const stored of store.values()) {
            if (stored.job.kind === spec.kind && stored.job.key === spec.key && unfinished(stored.job)) return copy(stored.job);
          }
        }
        const job: Job = {
          id: nextId(),
          kind: spec.kind,
          key: spec.key ?? null,
          payload: structuredClone(spec.payload),
          status: "pending",
          attempts: 0,
          maxAttempts: spec.maxAttempts ?? 16,
          runAt: spec.runAt,
          lastError: null,
        };
        store.set(job.id, { job, workerId: null, leaseUntil: 0, changedAt: Date.now() });
        return copy(job);
      }),
    cancel: (kind, key) =>
      Effect.sync(() => {
        for (const stored of store.values()) {
          if (stored.job.kind === kind && stored.job.key === key && unfinished(stored.job)) {
            change(stored, { status: "cancelled" });
            return true;
          }
        }
        return false;
      }),
  };

  const queue: JobQueue = {
    claimDue: ({ workerId, now, limit, leaseMs, kinds }) =>
      Effect.sync(() => {
        const at = now.getTime();
        const due = [...store.values()]
          .filter((s) => (kinds === undefined || kinds.includes(s.job.kind)) && s.job.runAt.getTime() <= at)
          .filter((s) => s.job.status === "pending" || (s.job.status === "running" && s.leaseUntil <= at))
          .sort((a, b) => a.job.runAt.getTime() - b.job.runAt.getTime() || (a.job.id < b.job.id ? -1 : 1))
          .slice(0, Math.max(0, limit));
        // A claim is an attempt: `attempts` counts claims, including a takeover of an expired lease.
        for (const s of due) change(s, { status: "running", attempts: s.job.attempts + 1 }, { workerId, leaseUntil: at + leaseMs });
        return due.map((s) => copy(s.job));
      }),
    extendLease: (id, workerId, until) =>
      Effect.sync(() => {
        const stored = held(id, workerId);
        if (stored === undefined) return false;
        stored.leaseUntil = until.getTime();
        return true;
      }),
    complete: (id, workerId) =>
      Effect.sync(() => {
        const stored = held(id, workerId);
        if (stored === undefined) return false;
        change(stored, { status: "done" });
        return true;
      }),
    fail: (id, workerId, { error, retryAt }) =>
      Effect.sync(() => {
        const stored = held(id, workerId);
        if (stored === undefined) return false;
        change(stored, retryAt === null ? { status: "dead", lastError: error } : { status: "pending", lastError: error, runAt: retryAt });
        return true;
      }),
    listDead: (limit, kinds, afterId) =>
      Effect.sync(() =>
        [...store.values()]
          .map((s) => s.job)
          .filter((job) => job.status === "dead" && (kinds === undefined || kinds.includes(job.kind)) && (afterId === undefined || job.id > afterId))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .slice(0, Math.max(0, limit))
          .map(copy),
      ),
    replay: (id, now) =>
      Effect.sync(() => {
        const stored = store.get(id);
        if (stored?.job.status !== "dead") return false;
        change(stored, { status: "pending", attempts: 0, runAt: now });
        return true;
      }),
    get: (id) =>
      Effect.sync(() => {
        const stored = store.get(id);
        return stored === undefined ? null : copy(stored.job);
      }),
    purgeFinished: (before, limit) =>
      Effect.sync(() => {
        let purged = 0;
        for (const [id, stored] of store) {
          if (purged >= limit) break;
          if ((stored.job.status === "done" || stored.job.status === "cancelled") && stored.changedAt < before.getTime()) {
            store.delete(id);
            purged++;
          }
        }
        return purged;
      }),
  };
  return { jobs, queue };
};

/** Provides both ports over one fresh store, made when the layer is built (a worker must see what the cores schedule). */
export const memoryJobsLayer = (): Layer.Layer<Jobs | JobQueue> =>
  Layer.effectContext(
    Effect.sync(() => {
      const { jobs, queue } = makeMemoryJobs();
      return Context.make(Jobs, jobs).pipe(Context.add(JobQueue, queue));
    }),
  );
