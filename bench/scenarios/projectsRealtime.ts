/**
 * Realtime fan-out: websocket subscribers of `project:<id>` on one server, the clients in a
 * separate process (SubscriberFleet.ts), then one task change at a time; each change's delivery
 * latency is measured per subscriber from the PATCH being sent to the event arriving (HTTP
 * commit, outbox relay woken on commit, bus, fan-out), and p50/p99 over all deliveries are
 * reported. The HTTP row then measures conditional PATCHes on that project while the subscribers
 * stay connected, so each write fans out to every socket.
 *
 * Two sizes: `projects-realtime-fanout` (1,000 subscribers, BENCH_FANOUT_SUBSCRIBERS) and
 * `projects-realtime-fanout-10k` (10,000, BENCH_FANOUT_10K_SUBSCRIBERS); the targets are
 * p99 < 100 ms and < 300 ms.
 */
import type { BenchRequest, Scenario } from "../Scenario.js";
import { startSubscriberFleet } from "../SubscriberFleet.js";
import { callJson, insertTasks, projectOwner } from "./projectsFixtures.js";

/** Subscribers from `variable`, default `fallback`, 1 to 10,000. */
const subscriberCount = (variable: string, fallback: number): number => {
  const count = Number(process.env[variable] ?? String(fallback));
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new Error(`${variable} must be an integer from 1 to 10000`);
  return count;
};

/** A change not delivered to every subscriber within this fails the setup. */
const deliveryTimeoutMs = 15_000;

/** Tasks per HTTP connection for the load that follows (as in projects-patch-task). */
const patchTasksPerConnection = 1_000;

const say = (line: string): void => void process.stderr.write(`# bench: ${line}\n`);

const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** The fan-out scenario for `count()` subscribers and `rounds` measured changes. */
const fanout = (name: string, size: string, count: () => number, rounds: number): Scenario => ({
  name,
  description: `PATCH /v1/tasks/:id on a project with ${size} websocket subscribers in another process (setup measures p50/p99 delivery latency)`,
  setup: async (target, { connections }) => {
    const subscribers = count();
    const owner = await projectOwner(target, `bench ${name}`);
    const tasks = await insertTasks(target, owner, rounds + connections * patchTasksPerConnection);
    const fleet = await startSubscriberFleet({ url: target.url, token: owner.token, channel: `project:${owner.projectId}`, count: subscribers });
    const latencies: number[] = [];
    try {
      for (const task of tasks.slice(0, rounds)) {
        const measured = await fleet.measure(
          task.id,
          () => callJson(target, owner.token, "PATCH", `/v1/tasks/${task.id}`, { title: "bench fan-out" }, { "if-match": `"${task.version}"` }).then(() => undefined),
          deliveryTimeoutMs,
        );
        latencies.push(...measured);
      }
    } catch (error) {
      await fleet.close();
      throw error;
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const line = `${name} [${target.dialect}]: ${rounds} changes x ${subscribers} subscribers, delivery latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} ms (from PATCH sent; clients in another process)`;
    say(line);
    // A result, not progress: also on stdout, ahead of the table.
    process.stdout.write(`${line}\n`);
    const requests: BenchRequest[] = tasks.slice(rounds).map((task) => ({
      method: "PATCH",
      path: `/v1/tasks/${task.id}`,
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", "if-match": `"${task.version}"` },
      body: JSON.stringify({ title: "bench task, patched" }),
    }));
    return {
      requests,
      consumable: true,
      metrics: { "delivery p50 ms": percentile(sorted, 50), "delivery p99 ms": percentile(sorted, 99), "delivery max ms": sorted[sorted.length - 1] ?? 0 },
      // The subscribers stay connected during the HTTP row and leave after it.
      during: () => ({ stop: async () => (await fleet.close(), {}) }),
    };
  },
});

/** One task change fanned out to 1,000 subscribers. */
export const projectsRealtimeFanout: Scenario = fanout("projects-realtime-fanout", "1,000", () => subscriberCount("BENCH_FANOUT_SUBSCRIBERS", 1_000), 20);

/** One task change fanned out to 10,000 subscribers on one server process. */
export const projectsRealtimeFanout10k: Scenario = fanout("projects-realtime-fanout-10k", "10,000", () => subscriberCount("BENCH_FANOUT_10K_SUBSCRIBERS", 10_000), 10);
