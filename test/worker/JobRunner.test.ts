/** Job runner rules: due jobs run once, failures back off, dead-letter after the bound, replay, unknown kinds fail loudly. */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { JobQueue, Jobs, type JobSpec } from "../../ports/Jobs.js";
import { listDeadJobs, replayJob, runJobsOnce, type JobHandler } from "../../adapters/worker/JobRunner.js";
import { at, openRuntime } from "./fixtures.js";

const minutes = (n: number) => n * 60_000;
const schedule = (spec: JobSpec) => Effect.flatMap(Jobs, (jobs) => jobs.schedule(spec));
const getJob = (id: string) => Effect.flatMap(JobQueue, (queue) => queue.get(id));
const options = { workerId: "runner-test", batchSize: 10, leaseMs: 30_000, baseMs: minutes(1), maxMs: minutes(1) };

forEachDialect(t, "a due job runs once and is done", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const payloads: unknown[] = [];
  const handler: JobHandler = { kind: "reservation.expire", run: (job) => Effect.sync(() => void payloads.push(job.payload)) };
  const t0 = Date.now();
  const job = await runtime.runPromise(schedule({ kind: "reservation.expire", payload: { id: "r1" }, runAt: new Date(t0 + minutes(5)) }));
  t.equal((await runtime.runPromise(at(t0)(runJobsOnce([handler], options)))).claimed, 0, "not due yet");
  t.same(await runtime.runPromise(at(t0 + minutes(5))(runJobsOnce([handler], options))), {
    claimed: 1,
    done: 1,
    retried: 0,
    dead: 0,
    lost: 0,
  });
  t.same(payloads, [{ id: "r1" }]);
  t.equal((await runtime.runPromise(getJob(job.id)))?.status, "done");
  t.equal((await runtime.runPromise(at(t0 + minutes(60))(runJobsOnce([handler], options)))).claimed, 0, "done jobs never run again");
});

forEachDialect(t, "a failing job retries with backoff, is dead-lettered after its bound, and replay runs it", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  let down = true;
  let runs = 0;
  const handler: JobHandler = {
    kind: "offer.expire",
    run: () =>
      Effect.suspend(() => {
        runs += 1;
        return down ? Effect.fail(new Error("provider unavailable")) : Effect.void;
      }),
  };
  const t0 = Date.now();
  const job = await runtime.runPromise(schedule({ kind: "offer.expire", payload: {}, runAt: new Date(t0), maxAttempts: 3 }));
  const pass = (millis: number) => runtime.runPromise(at(millis)(runJobsOnce([handler], options)));

  t.equal((await pass(t0)).retried, 1);
  const retrying = await runtime.runPromise(getJob(job.id));
  t.equal(retrying?.status, "pending");
  t.ok(retrying!.runAt.getTime() > t0, "the next attempt is in the future");
  t.match(retrying?.lastError, /provider unavailable/);
  t.equal((await pass(t0 + 1_000)).claimed, 0, "not retried before its time");
  t.equal((await pass(t0 + minutes(10))).retried, 1);
  t.equal((await pass(t0 + minutes(20))).dead, 1, "the third failure reaches the bound");
  t.equal((await pass(t0 + minutes(60))).claimed, 0, "a dead job is not retried");
  t.equal(runs, 3);
  t.same((await runtime.runPromise(listDeadJobs())).map((j) => j.id), [job.id]);

  down = false;
  t.equal(await runtime.runPromise(at(t0 + minutes(60))(replayJob(job.id))), true);
  t.equal(await runtime.runPromise(replayJob(job.id)), false, "only a dead job can be replayed");
  t.equal((await pass(t0 + minutes(60))).done, 1);
  t.equal(runs, 4);
  t.equal((await runtime.runPromise(getJob(job.id)))?.status, "done");
  t.same(await runtime.runPromise(listDeadJobs()), []);
});

forEachDialect(t, "a job of an unknown kind fails with a clear error instead of running", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const t0 = Date.now();
  const job = await runtime.runPromise(schedule({ kind: "mystery", payload: {}, runAt: new Date(t0), maxAttempts: 1 }));
  const pass = await runtime.runPromise(at(t0)(runJobsOnce([], options)));
  t.equal(pass.dead, 1);
  const dead = await runtime.runPromise(getJob(job.id));
  t.equal(dead?.status, "dead");
  t.match(dead?.lastError, /no handler is registered for job kind "mystery"/);
});

t.test("registering two handlers for one kind is refused", async (t) => {
  const handler: JobHandler = { kind: "x", run: () => Effect.void };
  const { handlerRegistry } = await import("../../adapters/worker/JobRunner.js");
  t.throws(() => handlerRegistry([handler, handler]), /two job handlers for kind "x"/);
});

forEachDialect(t, "a job running longer than its lease keeps it: the runner extends the lease, no other runner takes it over", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  let runs = 0;
  const handler: JobHandler = { kind: "export.long", run: () => Effect.zipRight(Effect.sync(() => void (runs += 1)), Effect.sleep(4_000)) };
  const job = await runtime.runPromise(schedule({ kind: "export.long", payload: null, runAt: new Date(Date.now() - 1_000) }));
  const lease = { batchSize: 1, leaseMs: 1_500 };
  const slow = runtime.runPromise(runJobsOnce([handler], { ...lease, workerId: "slow" }));
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await pause(300);
  t.equal((await runtime.runPromise(getJob(job.id)))?.status, "running", "the slow runner holds the job");
  // Well past the original 1.5 s lease, another runner keeps trying to claim.
  let stolen = 0;
  const until = Date.now() + 3_200;
  while (Date.now() < until) {
    stolen += (await runtime.runPromise(runJobsOnce([handler], { ...lease, workerId: "other" }))).claimed;
    await pause(200);
  }
  t.equal(stolen, 0, "the lease was extended while the handler ran");
  t.match(await slow, { claimed: 1, done: 1, lost: 0 });
  t.equal(runs, 1, "the job ran once");
  t.equal((await runtime.runPromise(getJob(job.id)))?.status, "done");
});
