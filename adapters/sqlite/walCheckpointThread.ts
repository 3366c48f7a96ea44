/**
 * The thread behind `startWalCheckpointer` (WalCheckpointer.ts): its own connection to the
 * database file, a PASSIVE checkpoint every `intervalMs`, closed when the parent says "close".
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

const { filename, intervalMs } = workerData as { readonly filename: string; readonly intervalMs: number };
const connection = new Database(filename);
const checkpoint = (): void => {
  try {
    // PASSIVE copies what no reader still needs and never waits: writers and readers go on.
    connection.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    /* a busy or closing database: the next tick tries again, the writer's own bound still holds */
  }
};
const timer = setInterval(checkpoint, intervalMs);
parentPort?.postMessage("ready");
parentPort?.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  checkpoint();
  connection.close();
  parentPort?.close();
});
