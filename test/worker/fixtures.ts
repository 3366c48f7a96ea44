/** Shared helpers for the worker and realtime tests: envelopes, a fixed clock, runtimes over a test database. */
import { Clock, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect";
import { v7 } from "uuid";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { realtimeBus, storageLayer, type StoragePorts } from "../../adapters/sql/index.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { Job } from "../../ports/Jobs.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import type { ClosableRealtimeBus } from "../../adapters/sql/index.js";

/** A fresh event envelope. */
export const makeEnvelope = (overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: v7(),
  type: "TestHappened",
  schema_version: 1,
  tenant_id: "tenant-1",
  aggregate_id: "aggregate-1",
  aggregate_version: 1,
  occurred_at: new Date().toISOString(),
  actor_id: null,
  data: {},
  ...overrides,
});

/** A clock stopped at `millis`, so a test can place a pass at any moment. */
export const clockAt = (millis: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => millis,
  currentTimeMillis: Effect.succeed(millis),
  unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
  sleep: (duration) => Clock.make().sleep(duration),
});

/** Runs `effect` as if the time were `millis`. */
export const at =
  (millis: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withClock(effect, clockAt(millis));

/** The ports a worker or realtime test runtime provides. */
export type TestPorts = StoragePorts | RealtimeBus;

/** A runtime over `db` with its bus; dispose both when done. */
export const openRuntime = async <X = never>(
  db: SqlDatabase,
  extra: Layer.Layer<X> = Layer.empty as unknown as Layer.Layer<X>,
): Promise<{ runtime: ManagedRuntime.ManagedRuntime<TestPorts | X, never>; bus: ClosableRealtimeBus; close: () => Promise<void> }> => {
  const bus = await realtimeBus(db);
  const runtime = ManagedRuntime.make(
    // Failures are the point of many tests; their warnings would only bury the test output.
    Layer.mergeAll(storageLayer(db), Layer.succeed(RealtimeBus, bus), extra, Logger.minimumLogLevel(LogLevel.Error)),
  );
  return {
    runtime,
    bus,
    close: async () => {
      await runtime.dispose();
      await bus.close();
    },
  };
};

/** Resolves once `condition` holds, checking every 10 ms; rejects after `timeoutMs`. */
export const eventually = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition"): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A job as the runner hands it to its handler (claimed, on attempt `attempts`). */
export const runningJob = (job: {
  readonly kind: string;
  readonly key: string | null;
  readonly payload: unknown;
  readonly attempts?: number;
  readonly maxAttempts?: number;
}): Job => ({
  id: `job-${job.kind}-${job.key ?? "unkeyed"}`,
  kind: job.kind,
  key: job.key,
  payload: job.payload,
  status: "running",
  attempts: job.attempts ?? 1,
  maxAttempts: job.maxAttempts ?? 16,
  runAt: new Date(),
  lastError: null,
});
