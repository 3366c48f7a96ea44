/**
 * Typed composition of modules (docs/architecture.md, Hosts). `compose().add(a).add(b)` keeps
 * the union of the ports the modules' Layers provide, and `add` only accepts a module whose
 * programs need nothing beyond the shared ports and the ports of the modules added so far (and
 * its own): a missing dependency is a compile error, not a "service not found" at run time.
 *
 *   const modules = compose().add(identityModule).add(makeProjectsModule()).add(makePaymentsModule());
 *   // Composition<ProjectsPorts | PaymentsPorts>: the host runtime is DomainRuntime<ProjectsPorts | PaymentsPorts>
 *
 * A one-module host may pass `[module]` wherever a composition is taken (`HostModules`).
 */
import { Layer } from "effect";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";
import type { HostServices } from "./PortBindings.js";

/** Modules composed for a host; `P` is the union of the ports their Layers provide. */
export interface Composition<P> {
  /** The modules in the order they were added (mount, migration and worker order). */
  readonly modules: ReadonlyArray<ModuleDefinition<never, HostServices<P>>>;
  /** Every module's Layer, merged. */
  readonly layer: Layer.Layer<P, never, SqlDatabase>;
  /** This composition plus `module`, whose programs must need only what the result provides. */
  readonly add: <Pm, Rm extends HostServices<P | Pm>>(module: ModuleDefinition<Pm, Rm>) => Composition<P | Pm>;
}

const make = <P>(modules: ReadonlyArray<ModuleDefinition<never, HostServices<P>>>, layer: Layer.Layer<P, never, SqlDatabase>): Composition<P> => ({
  modules,
  layer,
  add: (module) => adding(modules, layer, module),
});

const adding = <P, Pm, Rm extends HostServices<P | Pm>>(
  modules: ReadonlyArray<ModuleDefinition<never, HostServices<P>>>,
  layer: Layer.Layer<P, never, SqlDatabase>,
  module: ModuleDefinition<Pm, Rm>,
): Composition<P | Pm> => {
  if (modules.some((m) => m.name === module.name)) throw new Error(`module "${module.name}" is composed twice`);
  const added: ModuleDefinition<never, HostServices<P | Pm>> = module;
  const before: ReadonlyArray<ModuleDefinition<never, HostServices<P | Pm>>> = modules;
  return make<P | Pm>([...before, added], Layer.merge(layer, module.layer));
};

/** The empty composition: a host of the shared ports only. */
export const compose = (): Composition<never> => make<never>([], Layer.empty);

/** A composition, or a non-empty list of modules that all provide `P` (one module, typically). */
export type HostModules<P> =
  | Composition<P>
  | readonly [ModuleDefinition<P, NoInfer<HostServices<P>>>, ...ReadonlyArray<ModuleDefinition<P, NoInfer<HostServices<P>>>>];

/** `modules` as a composition. */
export const toComposition = <P>(modules: HostModules<P>): Composition<P> => {
  if ("add" in modules) return modules;
  const [first, ...rest] = modules;
  return rest.reduce((composition, module) => composition.add(module), compose().add(first));
};
