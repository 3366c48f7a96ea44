/**
 * Runs a contract kit with an assert object that records failures instead of reporting them, so a
 * test can prove the kit fails for a deliberately broken adapter and says which rule broke: each
 * failure reads `<case name, the rule>: <assertion message>`.
 */
import type { KitAssert, KitTestFunction } from "../contract/index.js";

/** An assert object that records failures, each prefixed with the case's name. */
export const recorder = (failures: string[], name: string): KitAssert => {
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

/** Runs `suite` with a recording test function; answers every recorded failure. */
export const kitFailures = async (suite: (test: KitTestFunction) => Promise<unknown>): Promise<ReadonlyArray<string>> => {
  const failures: string[] = [];
  // A case that dies (a broken adapter may raise what the real one never does) failed too.
  await suite((name, fn) => fn(recorder(failures, name)).catch((error: unknown) => void failures.push(`${name}: threw ${String(error)}`)));
  return failures;
};
