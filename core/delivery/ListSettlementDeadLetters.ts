/**
 * GET /operator/settlement-dead-letters (dispatchers / support): the settlement jobs that
 * exhausted their retries, oldest first, in keyset pages by job id (each one pages operations and
 * is replayed or fixed, so the list is usually one page). Settlement is not region-bound (payouts
 * belong to participants, not streets): any dispatcher sees every dead settlement. Anyone else: 403.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, mapPage, pageFrom } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { JobQueue } from "../../ports/Jobs.js";
import { dispatcherRegion } from "./ListRegionDeliveries.js";
import { settlementDeadLetterOf } from "./SettlementDeadLetters.js";
import { settlementJob } from "./SettlePayouts.js";

/** The dead settlement jobs (dispatchers only), a keyset page. */
export const listSettlementDeadLetters = (principal: Principal, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    yield* dispatcherRegion(principal);
    const after = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const jobs = yield* (yield* JobQueue).listDead(page.limit + 1, [settlementJob.kind], after);
    return mapPage(pageFrom(jobs, page.limit, (job) => [job.id]), settlementDeadLetterOf);
  }).pipe(withSpan("delivery.listSettlementDeadLetters"));
