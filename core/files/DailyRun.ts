/**
 * When the file storage module's daily sweeps run (quota reconciliation, trash purge, change
 * retention): each at its own UTC hour, keyed by the UTC day of the run so any number of workers
 * scheduling at start-up yields one run per day.
 */

const dayMs = 86_400_000;

/** The UTC day (YYYY-MM-DD) of `ms`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The first time strictly after `nowMs` that falls on `hourUtc:minuteUtc` UTC. */
export const nextDailyRunAt = (nowMs: number, hourUtc: number, minuteUtc = 0): number => {
  const runAt = Math.floor(nowMs / dayMs) * dayMs + hourUtc * 3_600_000 + minuteUtc * 60_000;
  return runAt <= nowMs ? runAt + dayMs : runAt;
};
