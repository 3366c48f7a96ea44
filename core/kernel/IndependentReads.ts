/**
 * Reads that do not depend on each other, run at once: on Postgres their statements are in
 * flight together (on the transaction's connection, pipelined, or on pool connections side by
 * side), so the caller waits about one round trip instead of one per read. That is the whole
 * gain, and it grows with the distance to the database. On SQLite they run one after the other.
 *
 * Failures keep the order of the code they replace: the answer fails with the failure of the
 * first read, in argument order, that failed, as running them one after another would; which
 * error a caller sees does not depend on which answer arrived first. Only for reads that need
 * no lock taken by another of them: statements issued from concurrent fibers leave in no
 * promised order, and a write would run where sequential code, stopped by an earlier failure,
 * would not have run it.
 */
import { Effect, Either } from "effect";

type AnyEffect = Effect.Effect<any, any, any>;

/** The results of `reads`, in argument order, read at once (see the file comment). */
export const independentReads = <const T extends ReadonlyArray<AnyEffect>>(
  ...reads: T
): Effect.Effect<
  { -readonly [K in keyof T]: Effect.Effect.Success<T[K]> },
  Effect.Effect.Error<T[number]>,
  Effect.Effect.Context<T[number]>
> =>
  Effect.flatMap(Effect.all(reads.map((read) => Effect.either(read)), { concurrency: "unbounded" }), (outcomes) => {
    const values: unknown[] = [];
    for (const outcome of outcomes) {
      if (Either.isLeft(outcome)) return Effect.fail(outcome.left);
      values.push(outcome.right);
    }
    return Effect.succeed(values as { -readonly [K in keyof T]: Effect.Effect.Success<T[K]> });
  });
