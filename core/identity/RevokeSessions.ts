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
    // Published in the bump's transaction: every bus delivers it once the bump commits, and the
    // realtime host of every process then closes this user's live sockets. A publish that fails
    // does not stop the revocation (tokens are refused by their epoch at the next request anyway);
    // a notice the Postgres bus sends with the transaction is part of it, as its COMMIT is.
    const announce = bus.publish({ type: "access_changed", userId }).pipe(Effect.catchAllCause(() => Effect.void));
    return yield* transactions.run(Effect.tap(epochs.bump(userId), () => announce));
  }).pipe(withSpan("Identity.revokeSessions"));
