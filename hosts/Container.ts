/**
 * The composition root: an inversify container whose bindings are the chosen adapters, one per
 * port (identified by the Effect tag's key), and the one Effect ManagedRuntime built from it.
 * Rebinding a port before `buildRuntime` replaces its adapter:
 *
 *   container.rebind(IdempotencyStore.key).toConstantValue(myStore)
 */
import "reflect-metadata";
import { Container } from "inversify";
import { Context, Effect, Layer, ManagedRuntime } from "effect";
import type { Logger } from "pino";
import { storageLayer } from "../adapters/sql/storageLayer.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { ClosableRealtimeBus } from "../adapters/sqlite/InProcessRealtimeBus.js";
import { ChannelAuthorizers, RealtimeBus, type ChannelAuthorizer } from "../ports/Realtime.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";
import { sharedPortTags, type AnyTag } from "./PortBindings.js";

/** Identifiers of the host-level (non-port) bindings. */
export const HostBindings = {
  Database: Symbol.for("domainkit/SqlDatabase"),
  Logger: Symbol.for("domainkit/Logger"),
  Modules: Symbol.for("domainkit/Modules"),
} as const;

/** What the container is built from. */
export interface ContainerInput {
  readonly database: SqlDatabase;
  readonly bus: ClosableRealtimeBus;
  readonly logger: Logger;
  readonly modules: ReadonlyArray<ModuleDefinition>;
}

/** Authorizers of every module, by channel kind; a kind claimed twice is a wiring error. */
const channelAuthorizers = (modules: ReadonlyArray<ModuleDefinition>): ChannelAuthorizers => {
  const byKind = new Map<string, ChannelAuthorizer>();
  for (const authorizer of modules.flatMap((m) => m.channelAuthorizers ?? [])) {
    if (byKind.has(authorizer.kind)) throw new Error(`two modules authorize channel kind "${authorizer.kind}"`);
    byKind.set(authorizer.kind, authorizer);
  }
  return { forKind: (kind) => byKind.get(kind) };
};

/** Every port tag the composition binds: the shared ones plus each module's own. */
export const boundTags = (modules: ReadonlyArray<ModuleDefinition>): ReadonlyArray<AnyTag> => [
  ...sharedPortTags,
  ...modules.flatMap((m) => (m.ports ?? []).map((p) => p.tag)),
];

/** Binds every port to its default adapter over `database`. */
export const createContainer = (input: ContainerInput): Container => {
  const container = new Container();
  container.bind(HostBindings.Database).toConstantValue(input.database);
  container.bind(HostBindings.Logger).toConstantValue(input.logger);
  container.bind(HostBindings.Modules).toConstantValue(input.modules);
  // The storage layer is made of plain values, so building it needs no scope that outlives this.
  const storage = Effect.runSync(Effect.scoped(Layer.build(storageLayer(input.database))));
  for (const tag of sharedPortTags) {
    if (tag === RealtimeBus || tag === ChannelAuthorizers) continue;
    container.bind(tag.key).toConstantValue(Context.unsafeGet(storage, tag as AnyTag));
  }
  container.bind(RealtimeBus.key).toConstantValue(input.bus);
  container.bind(ChannelAuthorizers.key).toConstantValue(channelAuthorizers(input.modules));
  for (const port of input.modules.flatMap((m) => m.ports ?? [])) {
    container.bind(port.tag.key).toDynamicValue(() => port.make(input.database)).inSingletonScope();
  }
  return container;
};

/** The one runtime of a host: every bound port, as the container resolves it now. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const buildRuntime = (container: Container, tags: ReadonlyArray<AnyTag>): ManagedRuntime.ManagedRuntime<any, never> => {
  let context = Context.empty() as Context.Context<unknown>;
  for (const tag of tags) context = Context.add(context, tag, container.get(tag.key));
  return ManagedRuntime.make(Layer.succeedContext(context));
};
