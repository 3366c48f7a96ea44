/** The bounded loop every raw baseline runs its operation in. */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { RawBounds } from "./Scenario.js";

/** How long a raw SQLite operation keeps retrying while the file is locked, and the pause between tries. */
const busyRetryMs = 5_000;
const busyPauseMs = 2;

const isBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === "SQLITE_BUSY";

/**
 * Runs `run`, and when SQLite answers "database is locked", yields to the event loop and runs it
 * again (for up to 5 s). The raw handle is synchronous and in the server's process: the lock it
 * meets is the server's (a transaction of the relay or of a job held open across an await), and
 * only the event loop the raw handle is blocking can end it, so waiting in the driver (its busy
 * timeout) never helps and yielding does. `run` is tried whole again: a raw operation that failed
 * on the lock wrote nothing (BEGIN IMMEDIATE or its one statement failed).
 */
export const retryWhileLocked = <T>(run: () => T): T | Promise<T> => {
  try {
    return run();
  } catch (error) {
    if (!isBusy(error)) throw error;
    return (async () => {
      const until = performance.now() + busyRetryMs;
      for (;;) {
        await sleep(busyPauseMs);
        try {
          return run();
        } catch (again) {
          if (!isBusy(again) || performance.now() > until) throw again;
        }
      }
    })();
  }
};

/**
 * Runs `op` in `bounds.concurrency` lanes until the time budget or the operation cap is spent,
 * after a short warm-up, and answers operations per second. `op` gets a global sequence number
 * and its lane; it may be synchronous (better-sqlite3) or return a promise (pg). An operation that
 * meets SQLite's lock is run again after the server has had the event loop (retryWhileLocked).
 */
export const measureOps = async (
  op: (sequence: number, lane: number) => unknown,
  bounds: RawBounds,
): Promise<{ ops: number; opsPerSecond: number; cpuMsPerOp: number }> => {
  const warmup = Math.min(200, bounds.maxOps);
  const { beforeOp } = bounds;
  for (let i = 0; i < warmup; i++) {
    beforeOp?.();
    await retryWhileLocked(() => op(i, 0));
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
      const result = retryWhileLocked(() => op(sequence, index));
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
