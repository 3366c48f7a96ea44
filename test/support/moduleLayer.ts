/**
 * The ports a module test needs, built from the same module definitions the hosts compose (no
 * re-listed bindings): the kernel storage ports and every module's Layer over `db`.
 *
 *   const runtime = ManagedRuntime.make(Layer.merge(moduleLayer(db, [projectsModule]), extras));
 */
import { Layer } from "effect";
import { databaseLayer, sqlStorageLayer } from "../../adapters/sql/DatabaseLayer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { toComposition, type HostModules } from "../../hosts/Composition.js";

/** The kernel storage ports and the ports of `modules`, over `db` (which must be migrated). */
export const moduleLayer = <P>(db: SqlDatabase, modules: HostModules<P>): Layer.Layer<StoragePorts | P> =>
  Layer.provide(Layer.merge(sqlStorageLayer, toComposition(modules).layer), databaseLayer(db));
