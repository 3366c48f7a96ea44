/**
 * POST /operator/settlement-dead-letters/:id/replay (a dispatcher, step-up, a reason): puts a dead
 * settlement job back in line now with its attempts reset. Replaying is safe: the job records
 * payables under unique component keys, so nothing is recorded twice. Another kind of job, or an
 * unknown id, answers 404; a job that is no longer dead (already replayed) 409. Actor and reason
 * are recorded with the job and order ids in dl_settlement_replays (append-only), in the replay's
 * transaction, and logged.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { JobQueue } from "../../ports/Jobs.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { notFound } from "./Access.js";
import { NotADeadSettlement } from "./Errors.js";
import { dispatcherRegion } from "./ListRegionDeliveries.js";
import { settlementDeadLetterOf } from "./SettlementDeadLetters.js";
import { settlementJob } from "./SettlePayouts.js";
import { requireStepUp } from "./StepUp.js";

/** Replays the dead settlement job `jobId` for `reason`; answers it in its new (pending) state. */
export const replaySettlementDeadLetter = (principal: Principal, jobId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("dead letter")));
    const queue = yield* JobQueue;
    const job = yield* queue.get(jobId);
    if (job === null || job.kind !== settlementJob.kind) return yield* Effect.fail(notFound("dead letter"));
    yield* requireStepUp(principal, "a settlement replay");
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a replay needs a reason (1 to 500 characters)" }] }));
    }
    const id = yield* (yield* Ids).next;
    const replayed = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        if (!(yield* queue.replay(job.id, at))) {
          return yield* Effect.fail(new NotADeadSettlement({ jobId: job.id, detail: `Job ${job.id} is ${job.status}, not dead: nothing to replay.` }));
        }
        const letter = settlementDeadLetterOf((yield* queue.get(job.id)) ?? job);
        // Actor and reason are kept with the replay, in its transaction (append-only).
        yield* (yield* Payables).recordReplay({ id, jobId: job.id, orderId: letter.orderId, actorId: userId, reason, at });
        return letter;
      }),
    );
    yield* Effect.logInfo("settlement dead letter replayed").pipe(
      Effect.annotateLogs({ actor_id: userId, reason, job_id: job.id, order_id: replayed.orderId ?? "" }),
    );
    return replayed;
  }).pipe(withSpan("delivery.replaySettlementDeadLetter"));
