/**
 * The relay's backlog between scenarios: a write scenario leaves outbox rows the worker is still
 * relaying when the load stops, and that work would otherwise be measured in the next scenario's
 * time and CPU (a read measured right after a write ran at two thirds of its speed alone). Each
 * scenario's load starts once the outbox has no pending row; its own relay work still runs beside it.
 */
import type { RawDatabase } from "./RawDatabase.js";

const pendingRows = async (raw: RawDatabase): Promise<number> => {
  const text = "SELECT count(*) AS n FROM outbox WHERE status = 'pending'";
  if (raw.dialect === "sqlite") return Number((raw.sqlite.prepare(text).get() as { n: number }).n);
  return Number((await raw.pool.query<{ n: string }>(text)).rows[0]?.n ?? 0);
};

/**
 * Waits until no outbox row is pending, at most `timeoutMs`; answers how long it waited and how
 * many rows were still pending when it gave up (0 when drained).
 */
export const waitForDrainedOutbox = async (raw: RawDatabase, timeoutMs = 60_000): Promise<{ readonly waitedMs: number; readonly pending: number }> => {
  const started = performance.now();
  for (;;) {
    const pending = await pendingRows(raw);
    const waitedMs = performance.now() - started;
    if (pending === 0 || waitedMs >= timeoutMs) return { waitedMs, pending };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
