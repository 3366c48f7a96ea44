/**
 * The composition root (docs/architecture.md, Hosts): an inversify container holding what a
 * host is made of — the database, the realtime bus, the logger, the composed modules, the shared
 * file pieces and any replaced adapters — and the one typed Effect runtime built from it:
 * `ManagedRuntime<SharedPorts | P, never>` for modules providing `P`.
 *
 * Replace a port's adapter before the runtime is built (PortBindings.ts):
 *
 *   rebindPort(container, IdempotencyStore, myStore)
 */
import "reflect-metadata";
import { Container } from "inversify";
import { Context, Effect, Layer, ManagedRuntime, type Tracer } from "effect";
import { pinoEffectLoggerLayer } from "../adapters/observability/EffectLogger.js";
import type { Logger } from "pino";
import { databaseLayer, sqlStorageLayer } from "../adapters/sql/DatabaseLayer.js";
import type { StoragePorts } from "../adapters/sql/storageLayer.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { ClosableRealtimeBus } from "../adapters/sql/InProcessRealtimeBus.js";
import { GrantChecks, type GrantCheck } from "../ports/GrantChecks.js";
import { ObjectStore } from "../ports/ObjectStore.js";
import type { Principal } from "../ports/Principal.js";
import { ChannelAuthorizers, RealtimeBus, type ChannelAuthorizer } from "../ports/Realtime.js";
import { Scanner } from "../ports/Scanner.js";
import { Thumbnailer } from "../ports/Thumbnailer.js";
import type { Composition } from "./Composition.js";
import type { ModuleChannelAuthorizer, ModuleGrantCheck } from "./ModuleDefinition.js";
import { portOverrides, type FilePorts, type HostServices } from "./PortBindings.js";

/** Identifiers of the host-level bindings. */
export const HostBindings = {
  Database: Symbol.for("domainkit/SqlDatabase"),
  Bus: Symbol.for("domainkit/RealtimeBus"),
  Logger: Symbol.for("domainkit/Logger"),
  Files: Symbol.for("domainkit/Files"),
} as const;

/** The shared file pieces a host binds for every module (ObjectStore, Scanner, Thumbnailer). */
export interface FileServices {
  readonly store: ObjectStore;
  readonly scanner: Scanner;
  readonly thumbnailer: Thumbnailer;
}

/** What the container is built from. */
export interface ContainerInput {
  readonly database: SqlDatabase;
  readonly bus: ClosableRealtimeBus;
  readonly logger: Logger;
  readonly files: FileServices;
}

/** Binds the pieces of a host; module ports come from the composition's Layers at `buildRuntime`. */
export const createContainer = (input: ContainerInput): Container => {
  const container = new Container();
  container.bind<SqlDatabase>(HostBindings.Database).toConstantValue(input.database);
  container.bind<ClosableRealtimeBus>(HostBindings.Bus).toConstantValue(input.bus);
  container.bind<Logger>(HostBindings.Logger).toConstantValue(input.logger);
  container.bind<FileServices>(HostBindings.Files).toConstantValue(input.files);
  return container;
};

const filesLayer = (files: FileServices): Layer.Layer<FilePorts> =>
  Layer.mergeAll(Layer.succeed(ObjectStore, files.store), Layer.succeed(Scanner, files.scanner), Layer.succeed(Thumbnailer, files.thumbnailer));

/**
 * The ChannelAuthorizers port over the modules' authorizers, each closed over the host's
 * services; a kind claimed twice is a wiring error. A failing authorizer is a defect (the
 * realtime server refuses the subscription).
 */
const channelAuthorizers = <S>(authorizers: ReadonlyArray<ModuleChannelAuthorizer<S>>, services: () => Context.Context<S>): ChannelAuthorizers => {
  const byKind = new Map<string, ChannelAuthorizer>();
  for (const authorizer of authorizers) {
    if (byKind.has(authorizer.kind)) throw new Error(`two modules authorize channel kind "${authorizer.kind}"`);
    byKind.set(authorizer.kind, {
      kind: authorizer.kind,
      ...(authorizer.showsActor === true ? { showsActor: true } : {}),
      authorize: (principal: Principal, channelId: string) =>
        authorizer.authorize(principal, channelId).pipe(
          Effect.orDie,
          Effect.mapInputContext((_: Context.Context<never>) => services()),
        ),
    });
  }
  return { forKind: (kind) => byKind.get(kind) };
};

/**
 * The GrantChecks port over the modules' grant checks, each closed over the host's services; an
 * issuer claimed twice is a wiring error. A check that cannot run is a defect (the grant handler
 * answers 500 and serves nothing).
 */
const grantChecks = <S>(checks: ReadonlyArray<ModuleGrantCheck<S>>, services: () => Context.Context<S>): GrantChecks => {
  const byIssuer = new Map<string, GrantCheck>();
  for (const check of checks) {
    if (byIssuer.has(check.issuer)) throw new Error(`two modules check grants of issuer "${check.issuer}"`);
    byIssuer.set(check.issuer, {
      issuer: check.issuer,
      holds: (claim) => check.holds(claim).pipe(Effect.mapInputContext((_: Context.Context<never>) => services())),
    });
  }
  return { forIssuer: (issuer) => byIssuer.get(issuer) };
};

/** How the runtime observes what it runs. */
export interface RuntimeOptions {
  /** Exports every span the runtime's programs open (adapters/observability/Tracing.ts); none when omitted. */
  readonly tracer?: Tracer.Tracer;
}

/** The host's services but the channel authorizers and grant checks, which are built over them. */
type BaseServices<P> = StoragePorts | RealtimeBus | FilePorts | P;

/**
 * The one runtime of a host: the kernel storage ports, the realtime bus and the file pieces, every
 * module's Layer over the database, then the replaced adapters, then the channel authorizers and
 * the grant checks closed over all of it.
 */
export const buildRuntime = <P>(
  container: Container,
  composition: Composition<P>,
  options: RuntimeOptions = {},
): ManagedRuntime.ManagedRuntime<HostServices<P>, never> => {
  const database = container.get<SqlDatabase>(HostBindings.Database);
  const logger = container.get<Logger>(HostBindings.Logger);
  const bus = container.get<ClosableRealtimeBus>(HostBindings.Bus);
  const files = container.get<FileServices>(HostBindings.Files);
  const base = Layer.mergeAll(
    Layer.provide(Layer.merge(sqlStorageLayer, composition.layer), databaseLayer(database)),
    Layer.succeed(RealtimeBus, bus),
    filesLayer(files),
  );
  const replaced: Layer.Layer<BaseServices<P>> = portOverrides(container).reduce((layer: Layer.Layer<BaseServices<P>>, override) => Layer.merge(layer, override), base);
  const authorizers = composition.modules.flatMap((m) => m.channelAuthorizers ?? []);
  const checks = composition.modules.flatMap((m) => m.grantChecks ?? []);
  const complete: Layer.Layer<HostServices<P>> = Layer.flatMap(replaced, (context: Context.Context<BaseServices<P>>) => {
    // The authorizers and checks run with every service of the host, their own ports included.
    const built: { services?: Context.Context<HostServices<P>> } = {};
    const servicesOf = (what: string) => () => {
      if (built.services === undefined) throw new Error(`${what} used before the host runtime was built`);
      return built.services;
    };
    const port = channelAuthorizers(authorizers, servicesOf("channel authorizers"));
    const services: Context.Context<HostServices<P>> = Context.add(
      Context.add(context, ChannelAuthorizers, port),
      GrantChecks,
      grantChecks(checks, servicesOf("grant checks")),
    );
    built.services = services;
    return Layer.succeedContext(services);
  });
  // Effect's log lines go through the host's pino logger; with a tracer, every program the runtime
  // runs (requests, jobs, consumers, relay passes) is traced, not only the HTTP handlers.
  const logging = pinoEffectLoggerLayer(logger, { traceIds: options.tracer !== undefined });
  // Without one, spans are no-ops: no span objects, clock reads or attribute maps per call.
  const observed = Layer.merge(logging, options.tracer === undefined ? Layer.setTracerEnabled(false) : Layer.setTracer(options.tracer));
  return ManagedRuntime.make(Layer.merge(complete, observed));
};
