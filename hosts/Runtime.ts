/**
 * One host's running pieces below HTTP: database, realtime bus, container and the Effect
 * runtime, plus the worker wiring. The reference server, the worker process, the CLI and an
 * embedding team all start from here, so they compose the same way.
 */
import { decodeJwt } from "jose";
import { Clock, Effect, type Tracer } from "effect";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { verifyToken, type TokenVerifier } from "../adapters/koa/Authentication.js";
import { realtimeBus } from "../adapters/sql/realtimeBus.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { ClosableRealtimeBus } from "../adapters/sql/InProcessRealtimeBus.js";
import { combineChannels, realtimeConsumer } from "../adapters/worker/RealtimeConsumer.js";
import { startWorker, type RunningWorker } from "../adapters/worker/Worker.js";
import type { Authenticate } from "../adapters/ws/UpgradeAuthentication.js";
import { makeSignatureScanner } from "../adapters/scanner/SignatureScanner.js";
import { makeSharpThumbnailer } from "../adapters/thumbnails/SharpThumbnailer.js";
import { UserEpochs, type UserStanding } from "../ports/UserEpochs.js";
import type { ObjectStore } from "../ports/ObjectStore.js";
import type { Scanner } from "../ports/Scanner.js";
import type { Thumbnailer } from "../ports/Thumbnailer.js";
import {
  defaultMaintenancePolicy,
  kernelMaintenanceKind,
  runKernelMaintenance,
  scheduleNextMaintenance,
  type MaintenancePolicy,
} from "../core/maintenance/KernelMaintenance.js";
import { toComposition, type Composition, type HostModules } from "./Composition.js";
import { buildRuntime, createContainer, type FileServices } from "./Container.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";
import type { HostServices, ModuleRuntime } from "./PortBindings.js";
import { unconfiguredObjectStore } from "./modules/blobStorageModule.js";
import type { ReferencePorts } from "./modules/index.js";

/** The runtime of a host (ModuleRuntime), the reference modules' by default. */
export type DomainRuntime<P = ReferencePorts> = ModuleRuntime<P>;

/** A composed host core. */
export interface HostCore<P> {
  readonly database: SqlDatabase;
  readonly bus: ClosableRealtimeBus;
  readonly container: Container;
  readonly runtime: DomainRuntime<P>;
  readonly composition: Composition<P>;
  readonly modules: ReadonlyArray<ModuleDefinition<never, HostServices<P>>>;
  /** Disposes the runtime, then closes the bus and the database. */
  readonly close: () => Promise<void>;
}

/** The shared file pieces of a host; an ObjectStore that refuses every call when none is given. */
export interface FileOptions {
  readonly store?: ObjectStore;
  /** The built-in signature scanner when omitted. */
  readonly scanner?: Scanner;
  /** sharp when omitted. */
  readonly thumbnailer?: Thumbnailer;
}

/** How a host core is composed. */
export interface HostCoreOptions<P> {
  readonly database: SqlDatabase;
  readonly modules: HostModules<P>;
  readonly logger: Logger;
  readonly files?: FileOptions;
  /** Replace adapters before the runtime is built, e.g. `c => rebindPort(c, Tag, adapter)`. */
  readonly rebind?: (container: Container) => void;
  /** Exports the spans of everything the runtime runs (createTracing's tracer); none when omitted. */
  readonly tracer?: Tracer.Tracer;
}

const fileServices = (options: FileOptions = {}): FileServices => ({
  store: options.store ?? unconfiguredObjectStore,
  scanner: options.scanner ?? makeSignatureScanner(),
  thumbnailer: options.thumbnailer ?? makeSharpThumbnailer(),
});

/** Composes container and runtime over an open, migrated database. */
export const createHostCore = async <P>(options: HostCoreOptions<P>): Promise<HostCore<P>> => {
  const composition = toComposition(options.modules);
  const bus = await realtimeBus(options.database);
  const container = createContainer({ database: options.database, bus, logger: options.logger, files: fileServices(options.files) });
  options.rebind?.(container);
  const runtime = buildRuntime(container, composition, options.tracer !== undefined ? { tracer: options.tracer } : {});
  for (const module of composition.modules) module.attachRuntime?.(runtime);
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await runtime.dispose();
      await bus.close();
      await options.database.close();
    })());
  return { database: options.database, bus, container, runtime, composition, modules: composition.modules, close };
};

/** Kernel maintenance of a host: the default policy with the event history scrubs its modules declare. */
export const hostMaintenancePolicy = (modules: ReadonlyArray<Pick<ModuleDefinition<never, never>, "eventHistoryScrubs">>): MaintenancePolicy => ({
  ...defaultMaintenancePolicy,
  eventScrubs: modules.flatMap((m) => m.eventHistoryScrubs ?? []),
});

/** Starts the outbox relay and job runner for every module of the host (realtime fan-out and kernel maintenance included). */
export const startHostWorker = async <P>(
  core: HostCore<P>,
  options: { readonly workerId?: string; readonly pollMs?: number; readonly gatherMs?: number } = {},
): Promise<RunningWorker> => {
  // Idempotent across processes: the next slot's job is keyed by the slot.
  const recurring: ReadonlyArray<(nowMs: number) => Effect.Effect<void, never, HostServices<P>>> = [
    scheduleNextMaintenance,
    ...core.modules.flatMap((m) => (m.scheduleRecurring ? [m.scheduleRecurring] : [])),
  ];
  await core.runtime.runPromise(
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.forEach(recurring, (schedule) => schedule(now), { discard: true })),
  );
  const channelMappings = core.modules.flatMap((m) => (m.channelsFor ? [m.channelsFor] : []));
  const maintenancePolicy = hostMaintenancePolicy(core.modules);
  return startWorker<HostServices<P>>({
    runtime: core.runtime,
    consumers: [
      ...core.modules.flatMap((m) => m.consumers ?? []),
      ...(channelMappings.length > 0 ? [realtimeConsumer({ channelsFor: combineChannels(...channelMappings) })] : []),
    ],
    jobHandlers: [
      { kind: kernelMaintenanceKind, run: () => Effect.asVoid(runKernelMaintenance(maintenancePolicy)) },
      ...core.modules.flatMap((m) => m.jobHandlers ?? []),
    ],
    ...(options.workerId !== undefined ? { workerId: options.workerId } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.gatherMs !== undefined ? { gatherMs: options.gatherMs } : {}),
  });
};

/** Where a user stands (token epoch, latest revocation), read through the runtime's UserEpochs port. */
export const epochLookup = <P>(runtime: DomainRuntime<P>) => (userId: string): Promise<UserStanding> =>
  runtime.runPromise(Effect.flatMap(UserEpochs, (epochs) => epochs.standing(userId)));

/**
 * Realtime upgrade authentication with the same JWT rules as HTTP, keeping the token's epoch (a
 * token without one is held to the user's epoch at connect: a later revocation closes it).
 */
export const jwtUpgradeAuthentication = <P>(secret: TokenVerifier, runtime: DomainRuntime<P>): Authenticate => async (token) => {
  // verifyToken's Unauthorized keeps its code (token_expired, token_revoked: the upgrade answers as
  // HTTP does); any other failure (the epoch lookup with the database down) is no verdict on the
  // token and reaches the upgrade's 503 (adapters/ws/RealtimeServer.ts).
  const principal = await verifyToken(secret, token, epochLookup(runtime));
  // verifyToken requires `exp`; the connection closes when it passes.
  const { epoch, exp } = decodeJwt(token);
  return { ...principal, ...(typeof epoch === "number" ? { epoch } : {}), ...(typeof exp === "number" ? { expiresAtMs: exp * 1000 } : {}) };
};
