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
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { replayDeadLetter } from "./DeadLetterDesk.js";
import { paymentDeadLetters } from "./PaymentDeadLetters.js";

/** Replays the dead payment step `jobId` for `reason`; answers it in its new (pending) state. */
export const replayPaymentDeadLetter = (principal: Principal, jobId: string, input: { readonly reason: string }) =>
  replayDeadLetter(paymentDeadLetters, principal, jobId, input).pipe(
    Effect.map(({ letter }) => letter),
    withSpan("delivery.replayPaymentDeadLetter"),
  );
