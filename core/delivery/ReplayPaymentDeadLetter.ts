/**
 * POST /operator/payment-dead-letters/:id/replay (a dispatcher, step-up, a reason): puts a dead
 * payment step back in line now with its attempts reset. Replaying is safe: each step calls the
 * provider under its one idempotency key and moves the order only from the state it expects
 * (OrderPayments.ts, ResolvePayment.ts, PlacementRelease.ts). Another kind of job, or an unknown
 * id, answers 404; a job that is no longer dead 409 not_a_dead_payment_step. Actor and reason are
 * recorded with the job, step and order or quote in dl_payment_replays (append-only), in the
 * replay's transaction.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import { JobQueue } from "../../ports/Jobs.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { notFound } from "./Access.js";
import { NotADeadPaymentStep } from "./Errors.js";
import { dispatcherRegion } from "./ListRegionDeliveries.js";
import { paymentDeadLetterOf, paymentSteps } from "./PaymentDeadLetters.js";
import { requireStepUp } from "./StepUp.js";

/** Replays the dead payment step `jobId` for `reason`; answers it in its new (pending) state. */
export const replayPaymentDeadLetter = (principal: Principal, jobId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("dead letter")));
    const queue = yield* JobQueue;
    const job = yield* queue.get(jobId);
    if (job === null || paymentSteps[job.kind] === undefined) return yield* Effect.fail(notFound("dead letter"));
    yield* requireStepUp(principal, "a payment step replay");
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a replay needs a reason (1 to 500 characters)" }] }));
    }
    const id = yield* (yield* Ids).next;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        if (!(yield* queue.replay(job.id, at))) {
          return yield* Effect.fail(new NotADeadPaymentStep({ jobId: job.id, detail: `Job ${job.id} is ${job.status}, not dead: nothing to replay.` }));
        }
        const letter = paymentDeadLetterOf((yield* queue.get(job.id)) ?? job);
        yield* (yield* OrdersRepository).recordPaymentReplay({ id, jobId: job.id, step: letter.step, orderId: letter.orderId, quoteId: letter.quoteId, actorId: userId, reason, at });
        return letter;
      }),
    );
  }).pipe(withSpan("delivery.replayPaymentDeadLetter"));
