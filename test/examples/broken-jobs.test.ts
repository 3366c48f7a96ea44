/**
 * The jobs kit fails for a broken Jobs/JobQueue adapter and names the rule it broke: each broken
 * adapter below is the in-memory example (examples/custom-adapter/MemoryJobs.ts, which passes the
 * kit) with one rule taken out.
 */
import { Context, Effect, Layer } from "effect";
import t from "tap";
import { makeMemoryJobs } from "../../examples/custom-adapter/MemoryJobs.js";
import { jobsSuite } from "../contract/index.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import { kitFailures } from "./kitRecorder.js";

/** The example's ports with `breakIt` applied: one rule broken. */
const brokenJobs = (breakIt: (ports: { jobs: Jobs; queue: JobQueue }) => { jobs: Jobs; queue: JobQueue }) =>
  kitFailures((test) =>
    jobsSuite({
      test,
      factory: async () => {
        const { jobs, queue } = breakIt(makeMemoryJobs());
        return { layer: Layer.succeedContext(Context.make(Jobs, jobs).pipe(Context.add(JobQueue, queue))), close: async () => undefined };
      },
    }),
  );

/** Whether a failure of the case named `rule` was recorded. */
const broke = (failures: ReadonlyArray<string>, rule: string) => failures.some((f) => f.startsWith(`${rule}:`));

t.test("the example adapter unbroken passes every case (the control)", async (t) => {
  t.same(await brokenJobs((ports) => ports), []);
});

t.test("a schedule that ignores its key breaks 'one unfinished job per kind and key'", async (t) => {
  const failures = await brokenJobs(({ jobs, queue }) => ({ jobs: { ...jobs, schedule: ({ key: _key, ...spec }) => jobs.schedule(spec) }, queue }));
  t.ok(broke(failures, "jobs: scheduling a key again while unfinished returns the existing job unchanged"), "the keyed schedule case fails");
  t.ok(broke(failures, "jobs: concurrent schedules of one key create exactly one job"), "the concurrent schedule case fails");
});

t.test("a complete that always answers true breaks 'only the holder completes a job, once'", async (t) => {
  const failures = await brokenJobs(({ jobs, queue }) => ({ jobs, queue: { ...queue, complete: (id, workerId) => Effect.as(queue.complete(id, workerId), true) } }));
  t.ok(broke(failures, "jobs: a completed job is done and never claimed again"), "completing twice is caught");
  t.ok(broke(failures, "jobs: a leased job is not claimed by another worker until its lease expires"), "a worker that lost its lease is caught");
});

t.test("a failure recorded as dead despite its retry time breaks 'a failed attempt is retried at its retry time'", async (t) => {
  const failures = await brokenJobs(({ jobs, queue }) => ({ jobs, queue: { ...queue, fail: (id, workerId, failure) => queue.fail(id, workerId, { ...failure, retryAt: null }) } }));
  t.ok(broke(failures, "jobs: a failed attempt is retried at its retry time with its error kept"), "the retry case fails");
});

t.test("a dead-letter list that ignores afterId breaks 'dead jobs come in keyset pages after an id'", async (t) => {
  const failures = await brokenJobs(({ jobs, queue }) => ({ jobs, queue: { ...queue, listDead: (limit, kinds) => queue.listDead(limit, kinds) } }));
  t.same(failures.filter((f) => !f.startsWith("jobs: dead jobs are listed oldest first by id")), [], "only the dead-letter case fails");
  t.ok(broke(failures, "jobs: dead jobs are listed oldest first by id, in keyset pages after an id, of the kinds asked only"), "the dead-letter case fails");
});
