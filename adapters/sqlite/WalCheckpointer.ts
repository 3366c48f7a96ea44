/**
 * WAL checkpoints off the request path. SQLite checkpoints a WAL database inside whichever
 * COMMIT pushes the log past `wal_autocheckpoint` pages: that commit copies the log back into the
 * database file and syncs it (two fsyncs with `synchronous = NORMAL`), on the event loop of the
 * process that happened to commit. A checkpointer thread with its own connection runs PASSIVE
 * checkpoints on a timer instead (they never block writers or readers), and the write connection
 * keeps a far larger `wal_autocheckpoint` only as the bound for a log the thread cannot keep up with.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** A running checkpointer thread. */
export interface WalCheckpointer {
  /** Resolves once the thread has its connection and its timer runs (rejects if it failed to start). */
  readonly ready: Promise<void>;
  /** Runs a last checkpoint, closes the thread's connection and waits for the thread to end. */
  readonly close: () => Promise<void>;
}

/** Pages the write connection lets the log reach before it checkpoints itself (~32 MiB of 4 KiB pages). */
export const writerCheckpointBoundPages = 8192;

/**
 * The thread: its own connection, a PASSIVE checkpoint every `intervalMs` (it copies what no
 * reader still needs and never waits), a last one and the close on "close". A CommonJS script
 * evaluated in the thread, not a module file: a thread loading ES modules runs the parent's
 * module hooks first (under a test runner that took ~0.4 s per thread instead of ~20 ms).
 */
const threadScript = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const connection = new Database(workerData.filename);
const checkpoint = () => {
  try {
    connection.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // A busy or closing database: the next tick tries again; the writer's own bound still holds.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.postMessage("ready");
parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  checkpoint();
  connection.close();
  parentPort.close();
});
`;

const driver = createRequire(import.meta.url).resolve("better-sqlite3");

/** Starts checkpointing `filename` (a WAL database) every `intervalMs` on a thread of its own. */
export const startWalCheckpointer = (filename: string, intervalMs: number): WalCheckpointer => {
  const worker = new Worker(threadScript, { eval: true, execArgv: [], workerData: { filename, intervalMs, driver } });
  // Never what keeps a process alive; a failing thread only costs the checkpoints (the writer's bound still holds).
  worker.unref();
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
    worker.once("exit", () => reject(new Error("the WAL checkpointer thread ended before it started")));
  });
  ready.catch(() => undefined);
  worker.on("error", () => undefined);
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  let closing: Promise<void> | undefined;
  return {
    ready,
    close: () => {
      closing ??= (async () => {
        worker.postMessage("close");
        const timeout = setTimeout(() => void worker.terminate(), 5_000);
        await exited;
        clearTimeout(timeout);
      })();
      return closing;
    },
  };
};
