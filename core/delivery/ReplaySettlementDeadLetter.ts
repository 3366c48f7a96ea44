/**
 * POST /operator/settlement-dead-letters/:id/replay (a dispatcher, step-up, a reason): puts a dead
 * settlement job back in line now with its attempts reset. Replaying is safe: the job records
 * payables under unique component keys, so nothing is recorded twice. Another kind of job, or an
 * unknown id, answers 404; a job that is no longer dead (already replayed) 409. Actor and reason
 * are recorded with the job and order ids in dl_settlement_replays (append-only), in the replay's
 * transaction, and logged.
 */
import { Effect } from "effect";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { replayDeadLetter } from "./DeadLetterDesk.js";
import { settlementDeadLetters } from "./SettlementDeadLetters.js";

/** Replays the dead settlement job `jobId` for `reason`; answers it in its new (pending) state. */
export const replaySettlementDeadLetter = (principal: Principal, jobId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const { letter, actorId, reason } = yield* replayDeadLetter(settlementDeadLetters, principal, jobId, input);
    yield* Effect.logInfo("settlement dead letter replayed").pipe(
      Effect.annotateLogs({ actor_id: actorId, reason, job_id: letter.id, order_id: letter.orderId ?? "" }),
    );
    return letter;
  }).pipe(withSpan("delivery.replaySettlementDeadLetter"));
