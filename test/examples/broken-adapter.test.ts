/** The kits can fail: a deliberately broken adapter is caught by the idempotency kit. */
import { Layer } from "effect";
import t from "tap";
import { examplesBrokenStore } from "./brokenIdempotencyStore.js";
import { idempotencySuite, type KitAssert } from "../contract/index.js";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";

/** An assert object that records failures instead of reporting them. */
const recorder = (failures: string[], name: string): KitAssert => {
  const check = (pass: boolean, message?: string) => {
    if (!pass) failures.push(`${name}: ${message ?? "assertion"}`);
    return pass;
  };
  return {
    ok: (v, ...m) => check(Boolean(v), m[0]),
    notOk: (v, ...m) => check(!v, m[0]),
    equal: (a, b, ...m) => check(a === b, m[0]),
    not: (a, b, ...m) => check(a !== b, m[0]),
    same: (a, b, ...m) => check(JSON.stringify(a) === JSON.stringify(b), m[0]),
  };
};

t.test("the idempotency kit rejects a store that lets every caller reserve", async (t) => {
  const failures: string[] = [];
  await idempotencySuite({
    test: (name, fn) => fn(recorder(failures, name)),
    factory: async () => ({ layer: Layer.succeed(IdempotencyStore, examplesBrokenStore()), close: async () => undefined }),
  });
  t.ok(failures.some((f) => f.startsWith("idempotency: of concurrent reserves of one key exactly one wins")), "the race case fails");
  t.ok(failures.some((f) => f.startsWith("idempotency: the first caller reserves the key")), "the reserve-once case fails");
});
