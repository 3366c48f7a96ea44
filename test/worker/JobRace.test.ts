/** Two workers on two connection pools of one Postgres never run a job at once and run each exactly once (SKIP LOCKED). */
import t from "tap";
import { Effect, Random } from "effect";
import { createTestPostgresDatabase } from "../support/databases.js";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import type { JobHandler } from "../../adapters/worker/JobRunner.js";
import { startWorker } from "../../adapters/worker/Worker.js";
import { eventually, openRuntime } from "./fixtures.js";

t.test("two workers racing over 100 jobs never run one job twice or at once [postgres]", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const first = await openPostgres({ connectionString: url, max: 4 });
  t.teardown(first.close);
  const second = await openPostgres({ connectionString: url, max: 4 });
  t.teardown(second.close);
  await migrate(first);
  const a = await openRuntime(first);
  t.teardown(a.close);
  const b = await openRuntime(second);
  t.teardown(b.close);

  const running = new Set<string>();
  const overlaps: string[] = [];
  const runs = new Map<string, number>();
  const executions: Array<{ id: string; worker: string; start: number; end: number }> = [];
  const handler = (worker: string): JobHandler => ({
    kind: "race",
    run: (job) =>
      Effect.gen(function* () {
        const start = performance.now();
        if (running.has(job.id)) overlaps.push(job.id);
        running.add(job.id);
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        // A short random pause widens the window in which a second claim would show up.
        yield* Effect.sleep(yield* Random.nextIntBetween(1, 6));
        running.delete(job.id);
        executions.push({ id: job.id, worker, start, end: performance.now() });
      }),
  });

  const jobs = await a.runtime.runPromise(
    Effect.forEach(Array.from({ length: 100 }, (_, i) => i), (i) =>
      Effect.flatMap(Jobs, (q) => q.schedule({ kind: "race", key: `job-${i}`, payload: { i }, runAt: new Date(Date.now() - 1_000) })),
    ),
  );
  const options = { consumers: [], pollMs: 5, batchSize: 5, leaseMs: 30_000 };
  const workerA = startWorker({ ...options, runtime: a.runtime, workerId: "worker-a", jobHandlers: [handler("a")] });
  const workerB = startWorker({ ...options, runtime: b.runtime, workerId: "worker-b", jobHandlers: [handler("b")] });
  await eventually(() => executions.length >= 100, 20_000, "100 executions");
  await Promise.all([workerA.stop(), workerB.stop()]);

  t.same(overlaps, [], "no job ran on two workers at once");
  t.equal(runs.size, 100, "every job ran");
  t.same([...runs.values()].filter((n) => n !== 1), [], "no job ran twice");
  // Timestamps tell the same: per job, no two executions overlap (there is one each).
  const byJob = new Map<string, Array<{ start: number; end: number }>>();
  for (const e of executions) byJob.set(e.id, [...(byJob.get(e.id) ?? []), e]);
  const overlapping = [...byJob.values()].filter((list) =>
    list.some((x, i) => list.some((y, j) => i !== j && x.start < y.end && y.start < x.end)),
  );
  t.same(overlapping, []);
  const statuses = await a.runtime.runPromise(Effect.forEach(jobs, (job) => Effect.flatMap(JobQueue, (q) => q.get(job.id))));
  t.same([...new Set(statuses.map((job) => job?.status))], ["done"], "every job is done");
  const byWorker = executions.reduce<Record<string, number>>((acc, e) => ({ ...acc, [e.worker]: (acc[e.worker] ?? 0) + 1 }), {});
  t.comment(`executions per worker: ${JSON.stringify(byWorker)}`);
});
