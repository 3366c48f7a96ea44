/**
 * GET /operator/settlement-dead-letters (dispatchers / support): the settlement jobs that
 * exhausted their retries, oldest first, at most 100 (one page: each one pages operations and is
 * replayed or fixed, so the list stays short). Settlement is not region-bound (payouts belong to
 * participants, not streets): any dispatcher sees every dead settlement. Anyone else: 403.
 */
import { Effect } from "effect";
import type { Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { JobQueue } from "../../ports/Jobs.js";
import { dispatcherRegion } from "./ListRegionDeliveries.js";
import type { SettlementDeadLetter } from "./model/SettlementDeadLetter.js";
import { settlementDeadLetterOf } from "./SettlementDeadLetters.js";
import { settlementJob } from "./SettlePayouts.js";

/** The most dead settlements one answer lists. */
export const maxSettlementDeadLetters = 100;

/** The dead settlement jobs (dispatchers only). */
export const listSettlementDeadLetters = (principal: Principal) =>
  Effect.gen(function* () {
    yield* dispatcherRegion(principal);
    const jobs = yield* (yield* JobQueue).listDead(maxSettlementDeadLetters, [settlementJob.kind]);
    return { data: jobs.map(settlementDeadLetterOf), next_cursor: null } satisfies Page<SettlementDeadLetter>;
  }).pipe(withSpan("delivery.listSettlementDeadLetters"));
