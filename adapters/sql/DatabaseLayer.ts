/**
 * The database as an Effect service, so a module's SQL adapters are a typed Layer over it:
 * `Layer.Layer<ProjectsPorts, never, SqlDatabase>` built with `sqlPort(Tag, makeSqlX)`, and the
 * kernel storage ports as `sqlStorageLayer` (docs/architecture.md, Hosts).
 */
import { Context, Effect, Layer } from "effect";
import type { SqlDatabase } from "./SqlDatabase.js";
import { storageLayer, type StoragePorts } from "./storageLayer.js";

/** The open, migrated database a host composes over (its service type is `SqlDatabase`). */
export const Database = Context.GenericTag<SqlDatabase>("domainkit/SqlDatabase");

/** The Layer that provides `database`. */
export const databaseLayer = (database: SqlDatabase): Layer.Layer<SqlDatabase> => Layer.succeed(Database, database);

/** One port bound to the adapter `make` builds over the database. */
export const sqlPort = <I, S>(tag: Context.Tag<I, S>, make: (database: SqlDatabase) => S): Layer.Layer<I, never, SqlDatabase> =>
  Layer.effect(tag, Effect.map(Database, make));

/** The kernel storage ports over the database (storageLayer.ts). */
export const sqlStorageLayer: Layer.Layer<StoragePorts, never, SqlDatabase> = Layer.unwrapEffect(Effect.map(Database, storageLayer));
