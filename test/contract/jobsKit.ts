/**
 * Contract kit for Jobs (scheduling) and JobQueue (workers): keyed schedules dedupe among
 * unfinished jobs, only due jobs are claimed, a lease keeps other workers off, and failures
 * retry, dead-letter and replay.
 */
import { Effect } from "effect";
import { JobQueue, Jobs, type JobSpec } from "../../ports/Jobs.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type JobsKitPorts = Jobs | JobQueue;

const schedule = (spec: JobSpec) => Effect.flatMap(Jobs, (j) => j.schedule(spec));
const claim = (workerId: string, now: Date, opts: { limit?: number; leaseMs?: number; kinds?: ReadonlyArray<string> } = {}) =>
  Effect.flatMap(JobQueue, (q) =>
    q.claimDue({ workerId, now, limit: opts.limit ?? 100, leaseMs: opts.leaseMs ?? 60_000, ...(opts.kinds ? { kinds: opts.kinds } : {}) }),
  );
const queue = <A>(f: (q: JobQueue) => Effect.Effect<A>) => Effect.flatMap(JobQueue, f);
/** A harmless read, to warm the adapter up before a race. */
const deadJobs = queue((q) => q.listDead(1));
/** A claim at an instant before anything is due: it takes nothing and warms the claim itself up. */
const claimNothing = claim("warm-up", new Date(0));

/** The cases of the jobs kit. */
export const jobsCases: ReadonlyArray<KitCase<JobsKitPorts>> = [
  {
    name: "jobs: a scheduled job is pending with its payload and no attempts",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "email", payload: { to: "a@example.com", n: [1, 2] }, runAt: at(5_000) }));
      t.equal(job.status, "pending");
      t.equal(job.attempts, 0);
      t.equal(job.maxAttempts, 16, "sixteen attempts unless told otherwise (retries outlast a payment's 15-minute ambiguity window)");
      t.equal(job.key, null);
      t.same(job.payload, { to: "a@example.com", n: [1, 2] });
      t.equal(job.runAt.getTime(), at(5_000).getTime());
      t.same(await run(queue((q) => q.get(job.id))), job, "get reads it back");
      t.equal(await run(queue((q) => q.get("no-such-job"))), null);
    },
  },
  {
    name: "jobs: scheduling a key again while unfinished returns the existing job unchanged",
    run: async (t, run) => {
      const first = await run(schedule({ kind: "expire", key: "order-1", payload: { v: 1 }, runAt: at(5_000) }));
      const second = await run(schedule({ kind: "expire", key: "order-1", payload: { v: 2 }, runAt: at(9_000) }));
      t.equal(second.id, first.id);
      t.same(second.payload, { v: 1 });
      t.equal(second.runAt.getTime(), at(5_000).getTime());
      const otherKind = await run(schedule({ kind: "remind", key: "order-1", payload: null, runAt: at(5_000) }));
      t.not(otherKind.id, first.id, "keys are unique per kind");
    },
  },
  {
    name: "jobs: a finished job's key can be scheduled again",
    run: async (t, run) => {
      const first = await run(schedule({ kind: "expire", key: "k", payload: null, runAt: at(0) }));
      await run(claim("w1", at(0)));
      t.equal(await run(queue((q) => q.complete(first.id, "w1"))), true);
      const second = await run(schedule({ kind: "expire", key: "k", payload: null, runAt: at(10) }));
      t.not(second.id, first.id);
      t.equal(second.status, "pending");
    },
  },
  {
    name: "jobs: retention deletes finished jobs changed before the cutoff; dead, running and pending ones stay",
    run: async (t, run) => {
      const spec = (key: string, ms: number) => ({ kind: "retain", key, payload: null, runAt: at(ms) });
      const done = await run(schedule(spec("done", 0)));
      await run(schedule(spec("cancelled", 0)));
      const dead = await run(schedule(spec("dead", 0)));
      const running = await run(schedule(spec("running", 0)));
      await run(schedule(spec("later", 1_000_000)));
      t.equal(await run(Effect.flatMap(Jobs, (j) => j.cancel("retain", "cancelled"))), true);
      await run(claim("w1", at(0), { kinds: ["retain"] }));
      t.equal(await run(queue((q) => q.complete(done.id, "w1"))), true);
      t.equal(await run(queue((q) => q.fail(dead.id, "w1", { error: "poison", retryAt: null }))), true);
      // The cutoff is past every job's run time and last change (jobs change at the wall clock).
      const cutoff = new Date(Math.max(Date.now(), at(2_000_000).getTime()) + 60_000);
      t.equal(await run(queue((q) => q.purgeFinished(new Date(Date.now() - 3_600_000), 100))), 0, "nothing changed before an hour ago");
      t.equal(await run(queue((q) => q.purgeFinished(cutoff, 100))), 2, "the done and the cancelled job");
      t.equal(await run(queue((q) => q.get(done.id))), null);
      t.equal((await run(queue((q) => q.get(dead.id))))?.status, "dead");
      t.equal((await run(queue((q) => q.get(running.id))))?.status, "running");
      t.equal((await run(schedule(spec("later", 1_000_000)))).status, "pending", "the pending job is still there (its key returns it)");
    },
  },
  {
    name: "jobs: concurrent schedules of one key create exactly one job",
    run: async (t, run) => {
      await run(warmUp(8, deadJobs));
      const jobs = await run(
        Effect.all(
          Array.from({ length: 8 }, (_, i) => schedule({ kind: "expire", key: "k", payload: { i }, runAt: at(0) })),
          { concurrency: "unbounded" },
        ),
      );
      t.equal(new Set(jobs.map((j) => j.id)).size, 1);
    },
  },
  {
    name: "jobs: only due jobs are claimed, earliest first, and claiming marks them running",
    run: async (t, run) => {
      const late = await run(schedule({ kind: "k", payload: 1, runAt: at(2_000) }));
      const early = await run(schedule({ kind: "k", payload: 2, runAt: at(1_000) }));
      await run(schedule({ kind: "k", payload: 3, runAt: at(3_001) }));
      const claimed = await run(claim("w1", at(3_000)));
      t.same(claimed.map((j) => j.id), [early.id, late.id]);
      t.equal(claimed[0]?.status, "running");
      t.equal(claimed[0]?.attempts, 1, "attempts count claims");
      t.equal((await run(queue((q) => q.get(late.id))))?.status, "running");
    },
  },
  {
    name: "jobs: a claim takes at most `limit` jobs and only the kinds asked for",
    run: async (t, run) => {
      for (let i = 0; i < 3; i++) await run(schedule({ kind: "a", payload: i, runAt: at(i) }));
      const b = await run(schedule({ kind: "b", payload: null, runAt: at(0) }));
      t.same((await run(claim("w1", at(10), { kinds: ["b"] }))).map((j) => j.id), [b.id]);
      t.equal((await run(claim("w1", at(10), { limit: 2 }))).length, 2);
      t.equal((await run(claim("w1", at(10), { kinds: [] }))).length, 0, "no kinds, no jobs");
    },
  },
  {
    name: "jobs: a leased job is not claimed by another worker until its lease expires",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "k", payload: null, runAt: at(0) }));
      await run(claim("w1", at(0), { leaseMs: 10_000 }));
      t.same(await run(claim("w2", at(5_000))), [], "held by w1");
      const retaken = await run(claim("w2", at(10_001)));
      t.same(retaken.map((j) => j.id), [job.id], "w2 takes over an expired lease");
      t.equal(retaken[0]?.attempts, 2);
      t.equal(await run(queue((q) => q.complete(job.id, "w1"))), false, "w1 no longer holds it");
      t.equal(await run(queue((q) => q.complete(job.id, "w2"))), true);
    },
  },
  {
    name: "jobs: the holder extends its lease; others stay off until the extended lease expires",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "k", payload: null, runAt: at(0) }));
      await run(claim("w1", at(0), { leaseMs: 10_000 }));
      t.equal(await run(queue((q) => q.extendLease(job.id, "w2", at(60_000)))), false, "only the holder extends");
      t.equal(await run(queue((q) => q.extendLease(job.id, "w1", at(30_000)))), true);
      t.same(await run(claim("w2", at(20_000))), [], "still held after the original lease");
      const retaken = await run(claim("w2", at(30_001)));
      t.same(retaken.map((j) => j.id), [job.id], "taken over once the extended lease expired");
      t.equal(await run(queue((q) => q.extendLease(job.id, "w1", at(90_000)))), false, "a lost lease cannot be extended");
      t.equal(await run(queue((q) => q.complete(job.id, "w2"))), true);
      t.equal(await run(queue((q) => q.extendLease(job.id, "w2", at(90_000)))), false, "nor a finished job's");
    },
  },
  {
    name: "jobs: concurrent workers never hold the same job at once",
    run: async (t, run) => {
      for (let i = 0; i < 60; i++) await run(schedule({ kind: "k", payload: i, runAt: at(i) }));
      await run(warmUp(6, claimNothing));
      const batches = await run(
        Effect.all(
          Array.from({ length: 6 }, (_, w) => claim(`w${w}`, at(1_000), { limit: 15 })),
          { concurrency: "unbounded" },
        ),
      );
      const ids = batches.flatMap((b) => b.map((j) => j.id));
      t.equal(ids.length, 60);
      t.equal(new Set(ids).size, 60);
    },
  },
  {
    name: "jobs: a completed job is done and never claimed again",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "k", payload: null, runAt: at(0) }));
      await run(claim("w1", at(0), { leaseMs: 1_000 }));
      t.equal(await run(queue((q) => q.complete(job.id, "w1"))), true);
      t.equal(await run(queue((q) => q.complete(job.id, "w1"))), false, "completing twice is refused");
      t.equal((await run(queue((q) => q.get(job.id))))?.status, "done");
      t.same(await run(claim("w2", at(100_000))), []);
    },
  },
  {
    name: "jobs: a failed attempt is retried at its retry time with its error kept",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "k", payload: null, runAt: at(0) }));
      await run(claim("w1", at(0)));
      t.equal(await run(queue((q) => q.fail(job.id, "w2", { error: "not mine", retryAt: at(1) }))), false, "only the holder may fail it");
      t.equal(await run(queue((q) => q.fail(job.id, "w1", { error: "timeout", retryAt: at(5_000) }))), true);
      const after = await run(queue((q) => q.get(job.id)));
      t.equal(after?.status, "pending");
      t.equal(after?.lastError, "timeout");
      t.equal(after?.runAt.getTime(), at(5_000).getTime());
      t.same(await run(claim("w1", at(4_999))), []);
      t.equal((await run(claim("w1", at(5_000))))[0]?.attempts, 2);
    },
  },
  {
    name: "jobs: dead jobs are listed oldest first by id, in keyset pages after an id, of the kinds asked only",
    run: async (t, run) => {
      const dead: string[] = [];
      for (const [n, kind] of [[1, "a"], [2, "b"], [3, "a"], [4, "a"]] as const) {
        const job = await run(schedule({ kind, key: `dead-${n}`, payload: null, runAt: at(0), maxAttempts: 1 }));
        await run(claim("w1", at(0), { kinds: [kind] }));
        t.equal(await run(queue((q) => q.fail(job.id, "w1", { error: "poison", retryAt: null }))), true);
        if (kind === "a") dead.push(job.id);
      }
      dead.sort();
      const page = (limit: number, afterId?: string) => run(queue((q) => q.listDead(limit, ["a"], afterId))).then((jobs) => jobs.map((j) => j.id));
      t.same(await page(10), dead, "every dead job of kind a, by id");
      t.same(await page(2), dead.slice(0, 2), "at most `limit`");
      t.same(await page(10, dead[1]), dead.slice(2), "strictly after `afterId`");
      t.same(await page(10, dead[2]), [], "nothing after the last");
    },
  },
  {
    name: "jobs: a job failed without a retry time is dead, listed, and replayable",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "k", key: "x", payload: null, runAt: at(0), maxAttempts: 1 }));
      await run(claim("w1", at(0)));
      t.equal(await run(queue((q) => q.fail(job.id, "w1", { error: "poison", retryAt: null }))), true);
      const dead = await run(queue((q) => q.listDead(10)));
      t.same(dead.map((j) => j.id), [job.id]);
      t.equal(dead[0]?.status, "dead");
      t.equal(dead[0]?.lastError, "poison");
      t.same(await run(claim("w1", at(100_000))), [], "dead jobs are not claimed");
      t.equal(await run(queue((q) => q.replay(job.id, at(200_000)))), true);
      t.equal(await run(queue((q) => q.replay(job.id, at(200_000)))), false, "no longer dead");
      const replayed = await run(queue((q) => q.get(job.id)));
      t.equal(replayed?.status, "pending");
      t.equal(replayed?.attempts, 0, "attempts start over");
      t.same((await run(claim("w1", at(200_000)))).map((j) => j.id), [job.id]);
    },
  },
  {
    name: "jobs: cancelling removes the unfinished job of that key from the queue",
    run: async (t, run) => {
      const job = await run(schedule({ kind: "expire", key: "order-1", payload: null, runAt: at(0) }));
      t.equal(await run(Effect.flatMap(Jobs, (j) => j.cancel("expire", "order-1"))), true);
      t.equal(await run(Effect.flatMap(Jobs, (j) => j.cancel("expire", "order-1"))), false, "nothing left to cancel");
      t.equal((await run(queue((q) => q.get(job.id))))?.status, "cancelled");
      t.same(await run(claim("w1", at(1_000))), []);
      const again = await run(schedule({ kind: "expire", key: "order-1", payload: null, runAt: at(0) }));
      t.not(again.id, job.id, "the key is free again");
    },
  },
];

/** Runs the jobs kit against an adapter. */
export const jobsSuite = (options: SuiteOptions<JobsKitPorts>): Promise<unknown> => runCases(options, jobsCases);
