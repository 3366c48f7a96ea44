/**
 * Realtime fan-out: 1,000 websocket subscribers of `project:<id>` on one server (clients in the
 * bench process), then one task change at a time; each change's delivery latency is measured
 * per subscriber from the PATCH being sent to the event arriving (HTTP commit, outbox relay
 * woken on commit, bus, fan-out), and p50/p99 over all deliveries are printed. The HTTP row then measures
 * conditional PATCHes on that project while the 1,000 subscribers stay connected, so each write
 * fans out to 1,000 sockets (the server closes them when it stops).
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import type { BenchRequest, BenchTarget, Scenario } from "../Scenario.js";
import { callJson, insertTasks, projectOwner, type ProjectOwner } from "./projectsFixtures.js";

/** Subscribers of the project channel: BENCH_FANOUT_SUBSCRIBERS, default 1,000. */
const subscriberCount = (): number => {
  const count = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? "1000");
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new Error("BENCH_FANOUT_SUBSCRIBERS must be an integer from 1 to 10000");
  return count;
};

/** Changes measured one after the other (each waits for all its deliveries). */
const rounds = 20;

/** A change not delivered to every subscriber within this fails the setup. */
const deliveryTimeoutMs = 15_000;

/** Tasks per HTTP connection for the load that follows (as in projects-patch-task). */
const patchTasksPerConnection = 1_000;

const say = (line: string): void => void process.stderr.write(`# bench: ${line}\n`);

const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** One subscriber: a socket, and who is waiting for which task's event on it. */
interface Subscriber {
  readonly socket: WebSocket;
  expect: { taskId: string; arrived: (at: number) => void } | undefined;
}

/** Opens a socket as `owner`, subscribes to the project and resolves once subscribed. */
const subscribe = (target: BenchTarget, owner: ProjectOwner): Promise<Subscriber> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(`${target.url.replace(/^http/, "ws")}/v1/realtime`, { headers: { authorization: `Bearer ${owner.token}` } });
    const subscriber: Subscriber = { socket, expect: undefined };
    const channel = `project:${owner.projectId}`;
    socket.once("open", () => socket.send(JSON.stringify({ type: "subscribe", channel })));
    socket.once("error", reject);
    socket.on("message", (raw) => {
      const at = performance.now();
      const expect = subscriber.expect;
      const message = JSON.parse(String(raw));
      if (message.type === "subscribed" && message.channel === channel) resolve(subscriber);
      else if (message.type === "error") reject(new Error(`subscribe refused: ${message.code}`));
      else if (expect !== undefined && message.type === "event" && message.event?.aggregate_id === expect.taskId) {
        subscriber.expect = undefined;
        expect.arrived(at);
      }
    });
  });

/** One task change fanned out to 1,000 subscribers. */
export const projectsRealtimeFanout: Scenario = {
  name: "projects-realtime-fanout",
  description: "PATCH /v1/tasks/:id on a project with 1,000 websocket subscribers (setup prints p50/p99 delivery latency)",
  setup: async (target, { connections }) => {
    const count = subscriberCount();
    const owner = await projectOwner(target, "bench fanout");
    const tasks = await insertTasks(target, owner, rounds + connections * patchTasksPerConnection);
    const subscribers: Subscriber[] = [];
    // In batches: 1,000 simultaneous upgrades would only measure the accept queue.
    for (let from = 0; from < count; from += 100) {
      subscribers.push(...(await Promise.all(Array.from({ length: Math.min(100, count - from) }, () => subscribe(target, owner)))));
    }
    const latencies: number[] = [];
    for (const task of tasks.slice(0, rounds)) {
      const started = performance.now();
      const delivered = Promise.all(
        subscribers.map(
          (subscriber) =>
            new Promise<void>((resolve) => {
              subscriber.expect = { taskId: task.id, arrived: (at) => (latencies.push(at - started), resolve()) };
            }),
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`projects-realtime-fanout: a change was not delivered to all ${count} subscribers within ${deliveryTimeoutMs} ms`)), deliveryTimeoutMs);
      });
      await callJson(target, owner.token, "PATCH", `/v1/tasks/${task.id}`, { title: "bench fan-out" }, { "if-match": `"${task.version}"` });
      await Promise.race([delivered, timeout]).finally(() => clearTimeout(timer));
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const line = `projects-realtime-fanout [${target.dialect}]: ${rounds} changes x ${count} subscribers, delivery latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} ms (from PATCH sent; relay woken on commit)`;
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
      metrics: { "delivery p50 ms": percentile(sorted, 50), "delivery p99 ms": percentile(sorted, 99), "delivery max ms": sorted[sorted.length - 1] ?? 0 },
    };
  },
};
