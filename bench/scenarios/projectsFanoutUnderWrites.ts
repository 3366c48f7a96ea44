/**
 * Realtime delivery while writes run: BENCH_FANOUT_WRITE_SUBSCRIBERS (default 100) websocket
 * subscribers follow one project while the HTTP load PATCHes that project's tasks as fast as it
 * can, so every write is relayed, appended to the channel log and fanned out under load. Each
 * delivery's latency is measured from the event's `occurred_at` (set by the server in the
 * command) to its arrival; after the load, the time until every subscriber has every event is the
 * backlog drain time. A backlog that does not drain within 15 s fails the row.
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import type { BenchRequest, BenchTarget, Scenario } from "../Scenario.js";
import { insertTasks, projectOwner, type ProjectOwner } from "./projectsFixtures.js";

const subscriberCount = (): number => {
  const count = Number(process.env.BENCH_FANOUT_WRITE_SUBSCRIBERS ?? "100");
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new Error("BENCH_FANOUT_WRITE_SUBSCRIBERS must be an integer from 1 to 10000");
  return count;
};

const drainTimeoutMs = 15_000;
const tasksPerConnection = 1_000;

const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** A subscriber that records, per event id, the latency of its arrival. */
interface Recorder {
  readonly socket: WebSocket;
  readonly seen: Set<string>;
}

const subscribe = (target: BenchTarget, owner: ProjectOwner, latencies: number[], recording: { on: boolean }): Promise<Recorder> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(`${target.url.replace(/^http/, "ws")}/v1/realtime`, { headers: { authorization: `Bearer ${owner.token}` } });
    const recorder: Recorder = { socket, seen: new Set() };
    const channel = `project:${owner.projectId}`;
    socket.once("open", () => socket.send(JSON.stringify({ type: "subscribe", channel })));
    socket.once("error", reject);
    socket.on("message", (raw) => {
      const message = JSON.parse(String(raw));
      if (message.type === "subscribed") resolve(recorder);
      else if (message.type === "error") reject(new Error(`subscribe refused: ${message.code}`));
      else if (message.type === "event" && recording.on) {
        recorder.seen.add(message.event.id);
        latencies.push(Date.now() - Date.parse(message.event.occurred_at));
      }
    });
  });

export const projectsFanoutUnderWrites: Scenario = {
  name: "projects-fanout-under-writes",
  description: "PATCH /v1/tasks/:id as fast as possible on a project followed by 100 websocket subscribers; delivery latency p50/p99 while writes run",
  setup: async (target, { connections }) => {
    const owner = await projectOwner(target, "bench fan-out under writes");
    const tasks = await insertTasks(target, owner, connections * tasksPerConnection);
    const latencies: number[] = [];
    const recording = { on: false };
    const count = subscriberCount();
    const subscribers: Recorder[] = [];
    for (let from = 0; from < count; from += 100) {
      subscribers.push(...(await Promise.all(Array.from({ length: Math.min(100, count - from) }, () => subscribe(target, owner, latencies, recording)))));
    }
    const requests: BenchRequest[] = tasks.map((task) => ({
      method: "PATCH",
      path: `/v1/tasks/${task.id}`,
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", "if-match": `"${task.version}"` },
      body: JSON.stringify({ title: "bench task, patched under fan-out" }),
    }));
    return {
      requests,
      consumable: true,
      during: () => {
        recording.on = true;
        return {
          stop: async (answered) => {
            // Every subscriber must end up with an event for every PATCH answered (the backlog
            // drains), and with every event any other subscriber saw.
            const ended = performance.now();
            const union = () => new Set(subscribers.flatMap((s) => [...s.seen]));
            let drained = false;
            while (performance.now() - ended < drainTimeoutMs) {
              const all = union();
              if (all.size >= (answered ?? 0) && subscribers.every((s) => s.seen.size === all.size)) {
                // Quiet for a moment: nothing new arrived, so the relay has caught up.
                const before = all.size;
                await new Promise((resolve) => setTimeout(resolve, 500));
                if (union().size === before) {
                  drained = true;
                  break;
                }
              } else await new Promise((resolve) => setTimeout(resolve, 50));
            }
            const drainMs = performance.now() - ended;
            recording.on = false;
            for (const s of subscribers) s.socket.close();
            if (!drained) throw new Error(`projects-fanout-under-writes: the realtime backlog did not drain within ${drainTimeoutMs} ms after the load`);
            const sorted = [...latencies].sort((a, b) => a - b);
            return {
              "deliveries": sorted.length,
              "latency p50 ms": percentile(sorted, 50),
              "latency p99 ms": percentile(sorted, 99),
              "drain ms": drainMs,
            };
          },
        };
      },
    };
  },
};
