/** Runs one measurement in a child load-generator process, bounded in time. */
import { fork } from "node:child_process";
import type { LoadSpec, LoadSummary } from "./LoadGenerator.js";

type Reply = { ok: true; summary: LoadSummary } | { ok: false; error: string } | { measuring: true };

/**
 * Forks bench/LoadGenerator.js, sends it `spec`, answers its summary; kills it when overdue.
 * `onMeasuring` is called when the warm-up is over and the counted run starts (so a caller can
 * measure its own CPU over the counted run only).
 */
export const runLoad = (spec: LoadSpec, onMeasuring: () => void = () => undefined): Promise<LoadSummary> =>
  new Promise((resolve, reject) => {
    if (!new URL(spec.url).hostname.startsWith("127.")) {
      reject(new Error(`the benchmark only sends traffic to 127.0.0.1, not ${spec.url}`));
      return;
    }
    const child = fork(new URL("./LoadGenerator.js", import.meta.url), ["--load-generator"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    // Warm-up + measurement + generous slack for startup and autocannon's own timeouts.
    const budgetMs = (spec.warmupSeconds + spec.durationSeconds) * 1000 + 30_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(() => reject(new Error(`load generator overran its ${budgetMs} ms budget`)));
    }, budgetMs);
    child.on("message", (reply: Reply) => {
      if ("measuring" in reply) return onMeasuring();
      finish(() => (reply.ok ? resolve(reply.summary) : reject(new Error(`load generator failed: ${reply.error}`))));
    });
    child.once("error", (error) => finish(() => reject(error)));
    child.once("exit", (code) => finish(() => reject(new Error(`load generator exited with ${code} before answering`))));
    child.send(spec);
  });
