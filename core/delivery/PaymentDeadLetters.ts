/**
 * GET /operator/payment-dead-letters (dispatchers / support): the payment steps that exhausted
 * their retries (spec, Background work: payment void or capture reconciliation; "dead-letter pages
 * operations"). A dead capture leaves its order capture_pending while the participants are owed;
 * a dead void or release leaves a customer's authorization held; a dead resolution leaves an
 * order payment_pending; a dead refund leaves support's refund pending. Oldest first, keyset
 * pages by job id; not region-bound, like settlement dead letters. Anyone else: 403.
 */
import { Effect, Option, Schema } from "effect";
import { withSpan } from "../kernel/Span.js";
import type { Job } from "../../ports/Jobs.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { listDeadLetters, type DeadLetterKind } from "./DeadLetterDesk.js";
import { NotADeadPaymentStep } from "./Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { PaymentDeadLetter } from "./model/PaymentDeadLetter.js";
import { paymentCaptureJob, paymentVoidJob } from "./OrderPayments.js";
import { placementReleaseJob } from "./PlacementRelease.js";
import { paymentResolveJob } from "./ResolvePayment.js";
import { refundJob } from "./OrderRefunds.js";

/** The job kinds of the page and the step each is. */
export const paymentSteps: Readonly<Record<string, PaymentDeadLetter["step"]>> = {
  [paymentCaptureJob.kind]: "capture",
  [paymentVoidJob.kind]: "void",
  [paymentResolveJob.kind]: "resolve",
  [placementReleaseJob.kind]: "release",
  [refundJob.kind]: "refund",
};

const decodeIds = Schema.decodeUnknownOption(Schema.Struct({ orderId: Schema.optional(Schema.String), quoteId: Schema.optional(Schema.String) }));

/** The page's view of a payment step's job. */
export const paymentDeadLetterOf = (job: Job): PaymentDeadLetter => ({
  id: job.id,
  step: paymentSteps[job.kind] ?? "capture",
  orderId: Option.getOrNull(decodeIds(job.payload))?.orderId ?? null,
  quoteId: Option.getOrNull(decodeIds(job.payload))?.quoteId ?? null,
  status: job.status,
  attempts: job.attempts,
  maxAttempts: job.maxAttempts,
  lastError: job.lastError,
  runAt: job.runAt,
});

/** Dead payment steps on the dispatchers' desk (DeadLetterDesk.ts): replays kept in dl_payment_replays. */
export const paymentDeadLetters: DeadLetterKind<PaymentDeadLetter, NotADeadPaymentStep, OrdersRepository> = {
  jobKinds: Object.keys(paymentSteps),
  letterOf: paymentDeadLetterOf,
  replayName: "a payment step replay",
  notDead: (job) => new NotADeadPaymentStep({ jobId: job.id, detail: `Job ${job.id} is ${job.status}, not dead: nothing to replay.` }),
  recordReplay: ({ id, job, letter, actorId, reason, at }) =>
    Effect.flatMap(OrdersRepository, (orders) =>
      orders.recordPaymentReplay({ id, jobId: job.id, step: letter.step, orderId: letter.orderId, quoteId: letter.quoteId, actorId, reason, at }),
    ),
};

/** The dead payment steps (dispatchers only), a keyset page. */
export const listPaymentDeadLetters = (principal: Principal, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  listDeadLetters(paymentDeadLetters, principal, page).pipe(withSpan("delivery.listPaymentDeadLetters"));
