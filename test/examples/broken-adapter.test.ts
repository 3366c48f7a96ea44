/** The kits can fail: a deliberately broken adapter is caught by the idempotency kit. */
import { Layer } from "effect";
import t from "tap";
import { examplesBrokenStore } from "./brokenIdempotencyStore.js";
import { kitFailures } from "./kitRecorder.js";
import { idempotencySuite } from "../contract/index.js";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";

t.test("the idempotency kit rejects a store that lets every caller reserve", async (t) => {
  const failures = await kitFailures((test) =>
    idempotencySuite({ test, factory: async () => ({ layer: Layer.succeed(IdempotencyStore, examplesBrokenStore()), close: async () => undefined }) }),
  );
  t.ok(failures.some((f) => f.startsWith("idempotency: of concurrent reserves of one key exactly one wins")), "the race case fails");
  t.ok(failures.some((f) => f.startsWith("idempotency: the first caller reserves the key")), "the reserve-once case fails");
});
