/** A settlement job as the operators' page shows it (shared by the list and the replay). */
import { Option, Schema } from "effect";
import type { Job } from "../../ports/Jobs.js";
import type { SettlementDeadLetter } from "./model/SettlementDeadLetter.js";
import { SettlementPayload } from "./SettlePayouts.js";

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
