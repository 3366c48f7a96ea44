/** The Ids port bound to time-ordered UUID v7 from the `uuid` package. */
import { Effect, Layer } from "effect";
import { v7 } from "uuid";
import { Ids } from "../../ports/Ids.js";

/** A fresh UUID v7 (for adapters that need an id outside an Effect). */
export const newId = (): string => v7();

/** The Ids port implementation. */
export const ids: Ids = { next: Effect.sync(newId) };

/** Provides the Ids port with UUID v7. */
export const idsLayer: Layer.Layer<Ids> = Layer.succeed(Ids, ids);
