/**
 * The sweep of unrecorded provider answers (spec rule 3). A confirm records its attempt `pending`,
 * calls the provider, then records the answer; when that last step never happens (the process
 * stops during the call, the recording's transaction fails, the request is cut off) the attempt
 * stays `pending`, the intent `processing`, and every confirm answers 409. Every minute this job
 * takes the attempts pending longer than a call can take (`unrecordedAfterMs`), marks each
 * `unknown` (its outcome is: the provider may or may not have acted) and schedules the intent's
 * reconciliation, which asks the provider by the attempt's reference and applies what it did;
 * a confirm retried meanwhile re-sends the same attempt under the same reference.
 *
 * A confirm pays nothing for this: no job per attempt, only the partial index of pending attempts
 * (payments migration 13). An answer that arrives after the sweep is applied as usual: step 3
 * accepts an `unknown` attempt, and under the intent's lock the later of the two finds it resolved.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { audit } from "./Audit.js";
import { reloadIntent } from "./IntentRecords.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import { reconcilerActor } from "./ReconciliationWindow.js";

/** How long an attempt may wait for its answer before it counts as unrecorded (a provider call times out well before). */
export const unrecordedAfterMs = 30_000;

/** How often the sweep runs. */
export const sweepIntervalMs = 60_000;

/** Attempts handled per page of one sweep. */
const sweepPage = 100;

/**
 * Marks one attempt `unknown` if it is still pending once its intent is locked (lock order: the
 * intent first), and schedules the intent's reconciliation when it is the intent's current
 * attempt. An older attempt left pending (nothing should leave one) is marked too, so it leaves
 * the sweep's index instead of coming back every minute, but reconciliation only follows the
 * current attempt.
 */
const markUnrecorded = (intentId: string, number: number): Effect.Effect<boolean, never, PaymentsRepository | Jobs | Ids | Outbox> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* reloadIntent(intentId);
    const attempt = yield* repo.findAttempt(intentId, number);
    if (attempt === null || attempt.status !== "pending") return false;
    const at = yield* now;
    yield* repo.updateAttempt({ ...attempt, status: "unknown", updatedAt: at });
    if (intent.status === "processing" && intent.attemptCount === number) {
      yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: intent.id, runAt: at });
    }
    yield* audit({
      merchantId: intent.merchantId,
      actor: reconcilerActor,
      action: "payment_intent.answer_unrecorded",
      subjectType: "payment_intent",
      subjectId: intent.id,
      reason: `no answer recorded ${Math.round(unrecordedAfterMs / 1000)} s after the call; asking the provider by the attempt's reference`,
      data: { attempt: number, reference: attempt.reference },
    });
    return true;
  });

/** One sweep: answers how many attempts it marked. */
export const sweepUnrecordedAnswers: Effect.Effect<number, never, PaymentsRepository | Transactions | Jobs | Ids | Outbox> = Effect.gen(
  function* () {
    const repo = yield* PaymentsRepository;
    const transactions = yield* Transactions;
    let marked = 0;
    for (;;) {
      const before = new Date((yield* now).getTime() - unrecordedAfterMs);
      const stale = yield* repo.pendingAttemptsBefore(before, sweepPage);
      let markedHere = 0;
      for (const attempt of stale) {
        if (yield* transactions.run(markUnrecorded(attempt.intentId, attempt.number))) markedHere += 1;
      }
      marked += markedHere;
      // A full page is followed by the next; a page whose attempts were all answered meanwhile
      // ends the sweep (the next runs in a minute).
      if (stale.length < sweepPage || markedHere === 0) return marked;
    }
  },
).pipe(withSpan("Payments.sweepUnrecordedAnswers"));

/** The sweep job (key `minute-<iso time>`); each run schedules the next. */
export const unrecordedAnswersSweepJob: JobDefinition<{ readonly at: string }, PaymentsRepository | Transactions | Jobs | Ids | Outbox> = defineJob({
  kind: "payments.unrecorded_answers_sweep",
  payload: Schema.Struct({ at: Schema.String }),
  handle: ({ at }) => Effect.zipRight(sweepUnrecordedAnswers, scheduleUnrecordedAnswersSweep(Date.parse(at))),
});

/** Schedules the first sweep after `nowMs` (on the minute); a no-op when it is scheduled already. */
export const scheduleUnrecordedAnswersSweep = (nowMs: number) => {
  const runAt = new Date((Math.floor(nowMs / sweepIntervalMs) + 1) * sweepIntervalMs);
  const at = runAt.toISOString();
  return Effect.asVoid(unrecordedAnswersSweepJob.schedule({ at }, { runAt, key: `minute-${at}` }));
};
