/**
 * Helpers shared by the kernel property tests: run a property and assert it holds, or run it
 * against a deliberately broken variant and assert fast-check finds a counterexample — the
 * proof that the property can fail at all.
 */
import { Effect, Either } from "effect";
import fc from "fast-check";
import type { Test } from "tap";

/** Runs properties quickly: a few hundred cases keep the whole kernel suite within seconds. */
export const numRuns = 200;

/** The assertions of a tap test used here. */
type Assertions = Pick<Test, "ok" | "notOk">;

/** Asserts that `property` holds for `numRuns` generated cases. */
export const holds = async <Ts>(
  t: Assertions,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  runs: number = numRuns,
): Promise<void> => {
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, { numRuns: runs });
  t.notOk(details.failed, details.failed ? fc.defaultReportMessage(details) ?? "property failed" : "property holds");
};

/** Asserts that fast-check finds a counterexample to `property` (run against a mutant). */
export const breaks = async <Ts>(
  t: Assertions,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  runs: number = numRuns,
): Promise<void> => {
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, { numRuns: runs });
  t.ok(details.failed, details.failed ? `counterexample found: ${fc.stringify(details.counterexample)}` : "no counterexample found");
};

/** Runs a synchronous Effect to an Either (the kernel cores need no services). */
export const runEither = <A, E>(effect: Effect.Effect<A, E>): Either.Either<A, E> => Effect.runSync(Effect.either(effect));

/** The `_tag` of a failure, or "ok" for a success. */
export const outcomeTag = <A, E extends { readonly _tag: string }>(result: Either.Either<A, E>): string =>
  Either.isRight(result) ? "ok" : result.left._tag;
