/**
 * One host's running pieces below HTTP: database, realtime bus, container and the Effect
 * runtime, plus the worker wiring. The reference server, the worker process, the CLI and an
 * embedding team all start from here, so they compose the same way.
 */
import { decodeJwt } from "jose";
import { Clock, Effect, type ManagedRuntime } from "effect";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { verifyToken } from "../adapters/koa/Authentication.js";
import { realtimeBus } from "../adapters/sql/realtimeBus.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { ClosableRealtimeBus } from "../adapters/sqlite/InProcessRealtimeBus.js";
import { combineChannels, realtimeConsumer } from "../adapters/worker/RealtimeConsumer.js";
import { startWorker, type RunningWorker } from "../adapters/worker/Worker.js";
import type { Authenticate } from "../adapters/ws/UpgradeAuthentication.js";
import { UserEpochs } from "../ports/UserEpochs.js";
import { kernelMaintenanceKind, runKernelMaintenance, scheduleNextMaintenance } from "../core/maintenance/KernelMaintenance.js";
import { boundTags, buildRuntime, createContainer } from "./Container.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";

/** The runtime every handler, consumer and job of a host runs on. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DomainRuntime = ManagedRuntime.ManagedRuntime<any, never>;

/** A composed host core. */
export interface HostCore {
  readonly database: SqlDatabase;
  readonly bus: ClosableRealtimeBus;
  readonly container: Container;
  readonly runtime: DomainRuntime;
  readonly modules: ReadonlyArray<ModuleDefinition>;
  /** Disposes the runtime, then closes the bus and the database. */
  readonly close: () => Promise<void>;
}

/** How a host core is composed. */
export interface HostCoreOptions {
  readonly database: SqlDatabase;
  readonly modules: ReadonlyArray<ModuleDefinition>;
  readonly logger: Logger;
  /** Replace adapters before the runtime is built, e.g. `c => c.rebind(Tag.key).toConstantValue(x)`. */
  readonly rebind?: (container: Container) => void;
}

/** Composes container and runtime over an open, migrated database. */
export const createHostCore = async (options: HostCoreOptions): Promise<HostCore> => {
  const bus = await realtimeBus(options.database);
  const container = createContainer({ database: options.database, bus, logger: options.logger, modules: options.modules });
  options.rebind?.(container);
  const runtime = buildRuntime(container, boundTags(options.modules));
  for (const module of options.modules) module.attachRuntime?.(runtime);
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await runtime.dispose();
      await bus.close();
      await options.database.close();
    })());
  return { database: options.database, bus, container, runtime, modules: options.modules, close };
};

/** Starts the outbox relay and job runner for every module of the host (realtime fan-out and kernel maintenance included). */
export const startHostWorker = async (
  core: HostCore,
  options: { readonly workerId?: string; readonly pollMs?: number } = {},
): Promise<RunningWorker> => {
  // Idempotent across processes: the next slot's job is keyed by the slot.
  await core.runtime.runPromise(
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.forEach([scheduleNextMaintenance, ...core.modules.flatMap((m) => (m.scheduleRecurring ? [m.scheduleRecurring] : []))], (schedule) => schedule(now), {
        discard: true,
      }),
    ),
  );
  const channelMappings = core.modules.flatMap((m) => (m.channelsFor ? [m.channelsFor] : []));
  const consumers = [
    ...core.modules.flatMap((m) => m.consumers ?? []),
    ...(channelMappings.length > 0 ? [realtimeConsumer({ channelsFor: combineChannels(...channelMappings) })] : []),
  ];
  return startWorker({
    runtime: core.runtime,
    consumers,
    jobHandlers: [
      { kind: kernelMaintenanceKind, run: () => Effect.asVoid(runKernelMaintenance()) },
      ...core.modules.flatMap((m) => m.jobHandlers ?? []),
    ],
    ...(options.workerId !== undefined ? { workerId: options.workerId } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
  });
};

/** The user's current token epoch, read through the runtime's UserEpochs port. */
export const epochLookup = (runtime: DomainRuntime) => (userId: string): Promise<number> =>
  runtime.runPromise(Effect.flatMap(UserEpochs, (epochs) => epochs.current(userId)));

/** Realtime upgrade authentication with the same JWT rules as HTTP, keeping the token's epoch. */
export const jwtUpgradeAuthentication = (secret: string, runtime: DomainRuntime): Authenticate => async (token) => {
  try {
    const principal = await verifyToken(secret, token, epochLookup(runtime));
    const epoch = decodeJwt(token).epoch;
    return { ...principal, epoch: typeof epoch === "number" ? epoch : 0 };
  } catch {
    return null;
  }
};
