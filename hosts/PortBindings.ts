/**
 * The ports every host provides to every module (the shared ones), and the typed way to replace
 * any port's adapter: `rebindPort(container, IdempotencyStore, myStore)` before the runtime is
 * built. The service must have the port's type, so a wrong adapter does not compile.
 */
import "reflect-metadata";
import type { Container } from "inversify";
import { Layer, type Context, type ManagedRuntime } from "effect";
import type { StoragePorts } from "../adapters/sql/storageLayer.js";
import type { GrantChecks } from "../ports/GrantChecks.js";
import type { ObjectStore } from "../ports/ObjectStore.js";
import type { ChannelAuthorizers, RealtimeBus } from "../ports/Realtime.js";
import type { Scanner } from "../ports/Scanner.js";
import type { Thumbnailer } from "../ports/Thumbnailer.js";

/** The shared file pieces: bound once by the host for every module that stores bytes. */
export type FilePorts = ObjectStore | Scanner | Thumbnailer;

/** Every port a host provides whatever modules it composes (kernel storage, realtime, files, grant checks). */
export type SharedPorts = StoragePorts | RealtimeBus | ChannelAuthorizers | FilePorts | GrantChecks;

/** What the programs of a host composing modules that provide `P` may use. */
export type HostServices<P> = SharedPorts | P;

/**
 * The runtime every handler, consumer and job of a host runs on: the shared ports plus the ports
 * `P` of its modules (`ModuleRuntime<ProjectsPorts | PaymentsPorts>`).
 */
export type ModuleRuntime<P> = ManagedRuntime.ManagedRuntime<HostServices<P>, never>;

/** The container's identifier of the replaced adapters (each one a Layer of one port). */
export const PortOverrides = Symbol.for("domainkit/PortOverrides");

/**
 * Binds `tag` to `service` in `container`, replacing the adapter the composition would use (the
 * shared ones and any module's). Several rebinds of one port: the last wins.
 */
export const rebindPort = <I, S>(container: Container, tag: Context.Tag<I, S>, service: S): void => {
  // A Layer providing `I` provides at least nothing: widening it to Layer<never> needs no cast.
  const layer: Layer.Layer<never> = Layer.succeed(tag, service);
  container.bind<Layer.Layer<never>>(PortOverrides).toConstantValue(layer);
};

/** The replaced adapters of `container`, in binding order. */
export const portOverrides = (container: Container): ReadonlyArray<Layer.Layer<never>> =>
  container.isBound(PortOverrides) ? container.getAll<Layer.Layer<never>>(PortOverrides) : [];
