/** A settlement job as the operators' page shows it, and the kind of dead letter it is on the dispatchers' desk. */
import { Effect, Option, Schema } from "effect";
import { Payables } from "../../ports/delivery/Payables.js";
import type { DeadLetterKind } from "./DeadLetterDesk.js";
import { NotADeadSettlement } from "./Errors.js";
import type { Job } from "../../ports/Jobs.js";
import type { SettlementDeadLetter } from "./model/SettlementDeadLetter.js";
import { SettlementPayload, settlementJob } from "./SettlePayouts.js";

const decodePayload = Schema.decodeUnknownOption(SettlementPayload);

/** The page's view of a settlement job: its ids from the payload (null when it does not decode). */
export const settlementDeadLetterOf = (job: Job): SettlementDeadLetter => {
  const payload = Option.getOrNull(decodePayload(job.payload));
  return {
    id: job.id,
    eventId: payload?.eventId ?? null,
    orderId: payload?.orderId ?? null,
    deliveryId: payload?.deliveryId ?? null,
    status: job.status,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    lastError: job.lastError,
    runAt: job.runAt,
  };
};

/** Dead settlement jobs on the dispatchers' desk (DeadLetterDesk.ts): replays kept in dl_settlement_replays. */
export const settlementDeadLetters: DeadLetterKind<SettlementDeadLetter, NotADeadSettlement, Payables> = {
  jobKinds: [settlementJob.kind],
  letterOf: settlementDeadLetterOf,
  replayName: "a settlement replay",
  notDead: (job) => new NotADeadSettlement({ jobId: job.id, detail: `Job ${job.id} is ${job.status}, not dead: nothing to replay.` }),
  recordReplay: ({ id, job, letter, actorId, reason, at }) =>
    Effect.flatMap(Payables, (payables) => payables.recordReplay({ id, jobId: job.id, orderId: letter.orderId, actorId, reason, at })),
};
