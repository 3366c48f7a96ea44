/** A deliberately wrong IdempotencyStore (every reserve succeeds), to prove the kit can fail. */
import { Effect } from "effect";
import type { IdempotencyStore } from "../../ports/IdempotencyStore.js";

/** Reserves every time and forgets everything: the bug the kit must catch. */
export const examplesBrokenStore = (): IdempotencyStore => ({
  reserve: () => Effect.succeed({ reserved: true }),
  complete: () => Effect.void,
  release: () => Effect.void,
  purgeExpired: () => Effect.succeed(0),
});
