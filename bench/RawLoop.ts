/** The bounded loop every raw baseline runs its operation in. */
import { performance } from "node:perf_hooks";
import type { RawBounds } from "./Scenario.js";

/**
 * Runs `op` in `bounds.concurrency` lanes until the time budget or the operation cap is spent,
 * after a short warm-up, and answers operations per second. `op` gets a global sequence number
 * and its lane; it may be synchronous (better-sqlite3) or return a promise (pg).
 */
export const measureOps = async (
  op: (sequence: number, lane: number) => unknown,
  bounds: RawBounds,
): Promise<{ ops: number; opsPerSecond: number; cpuMsPerOp: number }> => {
  const warmup = Math.min(200, bounds.maxOps);
  const { beforeOp } = bounds;
  for (let i = 0; i < warmup; i++) {
    beforeOp?.();
    await op(i, 0);
  }
  let next = warmup;
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const deadline = start + bounds.durationMs;
  const lane = async (index: number): Promise<void> => {
    while (done < bounds.maxOps && performance.now() < deadline) {
      const sequence = next++;
      beforeOp?.();
      const result = op(sequence, index);
      // Awaiting only real promises keeps the synchronous SQLite loop tight.
      if (result instanceof Promise) await result;
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, bounds.concurrency) }, (_, i) => lane(i)));
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { ops: done, opsPerSecond: seconds > 0 ? done / seconds : 0, cpuMsPerOp: done > 0 ? (used.user + used.system) / 1000 / done : 0 };
};
