/**
 * Session revocation: advancing a user's epoch invalidates every token issued before, at once
 * (docs/conventions.md, Authentication), and tells every process to re-check that user's live
 * realtime subscriptions.
 */
import { Effect } from "effect";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { Transactions } from "../../ports/Transactions.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { withSpan } from "../kernel/Span.js";

/** Revokes every token of `userId`; returns the new epoch that fresh tokens must carry. */
export const revokeSessions = (userId: string): Effect.Effect<number, never, UserEpochs | Transactions | RealtimeBus> =>
  Effect.gen(function* () {
    const epochs = yield* UserEpochs;
    const transactions = yield* Transactions;
    const bus = yield* RealtimeBus;
    const epoch = yield* transactions.run(epochs.bump(userId));
    // After commit: live sockets of this user are closed by the realtime host on every process.
    yield* bus.publish({ type: "access_changed", userId });
    return epoch;
  }).pipe(withSpan("Identity.revokeSessions"));
