/**
 * The dispatchers' desk for dead jobs of the delivery module: a kind of dead letter (settlements,
 * payment steps) is listed in keyset pages by job id (dispatchers only, any region: 403 else) and
 * replayed with a reason and step-up (404 for anyone else, an unknown id or another kind; 422 for
 * a missing reason; the kind's 409 once it is no longer dead). The replay puts the job back in
 * line with its attempts reset and records actor and reason in the kind's append-only table, in
 * the replay's transaction. One path for every kind (ListSettlementDeadLetters.ts,
 * ReplaySettlementDeadLetter.ts, PaymentDeadLetters.ts, ReplayPaymentDeadLetter.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { IdCursorKey, mapPage, pageFrom } from "../kernel/Page.js";
import { Ids } from "../../ports/Ids.js";
import { JobQueue, type Job } from "../../ports/Jobs.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound } from "./Access.js";
import { dispatcherRegion } from "./ListRegionDeliveries.js";
import { requireStepUp } from "./StepUp.js";

/** One kind of dead letter: its job kinds, its view, and how a replay is recorded. */
export interface DeadLetterKind<L, E, R> {
  readonly jobKinds: ReadonlyArray<string>;
  readonly letterOf: (job: Job) => L;
  /** What the step-up refusal names ("a settlement replay"). */
  readonly replayName: string;
  /** The 409 of a job that is no longer dead. */
  readonly notDead: (job: Job) => E;
  /** Records actor and reason of a replay (in its transaction). */
  readonly recordReplay: (replay: { readonly id: string; readonly job: Job; readonly letter: L; readonly actorId: string; readonly reason: string; readonly at: Date }) => Effect.Effect<void, never, R>;
}

/** The dead jobs of `kind` (dispatchers only), a keyset page. */
export const listDeadLetters = <L, E, R>(kind: DeadLetterKind<L, E, R>, principal: Principal, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    yield* dispatcherRegion(principal);
    const after = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const jobs = yield* (yield* JobQueue).listDead(page.limit + 1, kind.jobKinds, after);
    return mapPage(pageFrom(jobs, page.limit, (job) => [job.id]), kind.letterOf);
  });

/** Replays the dead job `jobId` of `kind` for `reason`; answers it in its new (pending) state, with the replaying dispatcher. */
export const replayDeadLetter = <L, E, R>(kind: DeadLetterKind<L, E, R>, principal: Principal, jobId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("dead letter")));
    const queue = yield* JobQueue;
    const job = yield* queue.get(jobId);
    if (job === null || !kind.jobKinds.includes(job.kind)) return yield* Effect.fail(notFound("dead letter"));
    yield* requireStepUp(principal, kind.replayName);
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a replay needs a reason (1 to 500 characters)" }] }));
    }
    const id = yield* (yield* Ids).next;
    const letter = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        if (!(yield* queue.replay(job.id, at))) return yield* Effect.fail(kind.notDead(job));
        const replayed = (yield* queue.get(job.id)) ?? job;
        const letter = kind.letterOf(replayed);
        yield* kind.recordReplay({ id, job: replayed, letter, actorId: userId, reason, at });
        return letter;
      }),
    );
    return { letter, actorId: userId, reason };
  });
