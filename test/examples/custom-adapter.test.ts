/** The example in-memory adapter passes the idempotency contract kit, as an author would run it. */
import t from "tap";
import { memoryIdempotencyStoreLayer } from "../../examples/custom-adapter/MemoryIdempotencyStore.js";
import { idempotencySuite } from "../contract/index.js";

t.test("in-memory idempotency store (examples/custom-adapter)", (t) =>
  idempotencySuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => ({ layer: memoryIdempotencyStoreLayer(), close: async () => undefined }),
    supports: { concurrentConnections: false },
  }),
);
