/**
 * GET /operator/settlement-dead-letters (dispatchers / support): the settlement jobs that
 * exhausted their retries, oldest first, in keyset pages by job id (each one pages operations and
 * is replayed or fixed, so the list is usually one page). Settlement is not region-bound (payouts
 * belong to participants, not streets): any dispatcher sees every dead settlement. Anyone else: 403.
 */
import { withSpan } from "../kernel/Span.js";
import type { Principal } from "../../ports/Principal.js";
import { listDeadLetters } from "./DeadLetterDesk.js";
import { settlementDeadLetters } from "./SettlementDeadLetters.js";

/** The dead settlement jobs (dispatchers only), a keyset page. */
export const listSettlementDeadLetters = (principal: Principal, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  listDeadLetters(settlementDeadLetters, principal, page).pipe(withSpan("delivery.listSettlementDeadLetters"));
