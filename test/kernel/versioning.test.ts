/** Optimistic versioning: an update applies only at the version it was based on. */
import { Effect, Either } from "effect";
import fc from "fast-check";
import t from "tap";
import { NotFound, PreconditionRequired, VersionMismatch } from "../../core/kernel/Errors.js";
import * as Versioning from "../../core/kernel/Versioning.js";
import { breaks, holds, runEither } from "./support/properties.js";

interface Doc {
  readonly id: string;
  readonly title: string;
  readonly version: number;
}
const doc = fc.record({ id: fc.uuid(), title: fc.string(), version: fc.integer({ min: 1, max: 1_000 }) });
const expected = fc.option(fc.integer({ min: 0, max: 1_001 }), { nil: undefined });

type ExpectVersion = (current: Doc, expected: number | undefined) => Effect.Effect<Doc, unknown>;

// Succeeds exactly when the expected version equals the current one; a missing version is a
// 428 and a stale one a 412 that carries the current resource.
const onlyTheCurrentVersionPasses = (expectVersion: ExpectVersion) =>
  fc.property(doc, fc.oneof(expected, fc.constant(undefined)), (current, exp) => {
    const result = runEither(expectVersion(current, exp));
    if (exp === undefined) return Either.isLeft(result) && result.left instanceof PreconditionRequired;
    if (exp === current.version) return Either.isRight(result) && result.right === current;
    return Either.isLeft(result) && result.left instanceof VersionMismatch && result.left.current === current;
  });

t.test("an update passes only with the current version; stale answers 412 with current, missing 428", async (t) => {
  await holds(t, onlyTheCurrentVersionPasses(Versioning.expectVersion));
  // Also with the expected version drawn close to the current one, where off-by-one bugs live.
  await holds(
    t,
    fc.property(doc, fc.integer({ min: -1, max: 1 }), (current, delta) => {
      const result = runEither(Versioning.expectVersion(current, current.version + delta));
      return delta === 0 ? Either.isRight(result) : Either.isLeft(result) && result.left instanceof VersionMismatch;
    }),
  );
});

t.test("mutant: a check that accepts any version not newer than current is caught", async (t) => {
  const lenient: ExpectVersion = (current, exp) =>
    exp === undefined
      ? Effect.fail(new PreconditionRequired({}))
      : exp <= current.version
        ? Effect.succeed(current)
        : Effect.fail(Versioning.versionMismatch(current, exp));
  await breaks(t, onlyTheCurrentVersionPasses(lenient));
});

t.test("an accepted update advances the version by one, and the old version is then stale", async (t) => {
  await holds(
    t,
    fc.property(doc, fc.string(), (current, title) => {
      let changes = 0;
      const updated = runEither(
        Versioning.updateVersioned(current, current.version, (d) => Effect.sync(() => (changes++, { ...d, title }))),
      );
      if (Either.isLeft(updated) || changes !== 1) return false;
      if (updated.right.version !== Versioning.advance(current.version) || updated.right.title !== title) return false;
      const again = runEither(
        Versioning.updateVersioned(updated.right, current.version, (d) => Effect.sync(() => (changes++, d))),
      );
      return Either.isLeft(again) && again.left instanceof VersionMismatch && changes === 1;
    }),
  );
});

t.test("a conditional write that matched no row answers with the current resource, or 404 when gone", async (t) => {
  const current: Doc = { id: "d1", title: "now", version: 7 };
  const stale = runEither(Versioning.staleWrite("document", Effect.succeed(current), 6));
  t.ok(Either.isLeft(stale) && stale.left instanceof VersionMismatch && stale.left.current === current);
  if (Either.isLeft(stale)) {
    t.equal(stale.left.code, "version_mismatch");
    t.equal((stale.left as VersionMismatch).category, "precondition_failed");
  }
  const gone = runEither(Versioning.staleWrite<Doc, never, never>("document", Effect.succeed(undefined)));
  t.ok(Either.isLeft(gone) && gone.left instanceof NotFound);
});
