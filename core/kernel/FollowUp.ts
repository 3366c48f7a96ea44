/**
 * The follow-up of committed work that a durable job also finishes (a capture after a dispatch,
 * the release of a stranded authorization): tried at once for promptness, and whatever stops it
 * (the provider, a database error) is logged, not answered, because what committed is the
 * answer and the job scheduled with it retries. Interruption still propagates.
 */
import { Cause, Effect } from "effect";

/** Runs `followUp`; any failure but interruption becomes a warning naming `what` and `annotations`. */
export const followUpOfCommitted = <A, E, R>(
  followUp: Effect.Effect<A, E, R>,
  what: string,
  annotations: Readonly<Record<string, unknown>>,
): Effect.Effect<void, never, R> =>
  Effect.asVoid(followUp).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.logWarning(`${what} failed; its job retries`).pipe(Effect.annotateLogs({ ...annotations, cause: Cause.pretty(cause) })),
    ),
  );
