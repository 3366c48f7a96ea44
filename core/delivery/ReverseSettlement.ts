/**
 * A settlement correction (issue rule 4: entries are immutable; corrections are linked
 * reversals with actor and reason): every component of the order's settlement is negated by a
 * new entry that names the one it reverses (kernel Ledger `reversalOf`), in one balanced
 * transaction; an order's settlement is reversed at most once (409 already_reversed). Payables
 * already recorded for the participants are reversed in the same transaction (SettlePayouts.ts).
 * Who may do this (support with step-up authentication) is checked by the caller's route.
 */
import { SettlementEntryId } from "./model/Ids.js";
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { NotFound, ValidationFailed } from "../kernel/Errors.js";
import { AlreadyReversed, reversalOf, validateTransaction } from "../kernel/Ledger.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import type { SettlementEntry } from "./model/SettlementEntry.js";
import { componentKey, settlementSource } from "./Settlement.js";
import { recordOrderPayables } from "./SettlePayouts.js";
import { withSpan } from "../kernel/Span.js";

/**
 * Posts the reversal of the order's completion settlement, in the caller's transaction (the
 * order's workflow row locked first); answers the reversal entries. Entries of partial refunds
 * (RefundOrder.ts) are not part of the completion's settlement and are left as they are.
 */
export const postSettlementReversal = (input: { readonly actorId: string; readonly orderId: string; readonly reason: string }) =>
  Effect.gen(function* () {
    const ledger = yield* SettlementLedger;
    const ids = yield* Ids;
    // The settlement job's lock (recordOrderPayables): one of the two reads the other's entries.
    yield* (yield* OrdersRepository).findWorkflow(input.orderId, { forUpdate: true });
    const posted = yield* ledger.entriesOfOrder(input.orderId);
    const originals = posted.filter((e) => e.reverses === null && e.componentKey === componentKey(input.orderId, e.component));
    if (originals.length === 0) return yield* Effect.fail(new NotFound({ resource: "settlement", detail: "the order has no settlement" }));
    const source = settlementSource(input.orderId);
    const reversal = yield* validateTransaction(
      reversalOf({ source, entries: originals.map((e) => ({ account: e.account, amount_minor: e.amountMinor, currency: e.currency })) }, `${source}:reversal`),
    );
    const at = yield* now;
    const entries: SettlementEntry[] = [];
    for (const [i, entry] of reversal.entries.entries()) {
      const original = originals[i]!;
      entries.push({
        ...original,
        id: SettlementEntryId.make(yield* ids.next),
        componentKey: `${original.componentKey}:reversal`,
        amountMinor: entry.amount_minor,
        reverses: original.componentKey,
        actorId: input.actorId,
        reason: input.reason,
        createdAt: at,
      });
    }
    if ((yield* ledger.post(entries)) === "duplicate") {
      return yield* Effect.fail(new AlreadyReversed({ source, reversedBy: `${source}:reversal`, detail: "the settlement was already reversed" }));
    }
    // Payables already recorded are reversed with it; a settlement job that runs later records none.
    yield* recordOrderPayables(input.orderId);
    return entries;
  });

/** Reverses the order's settlement on behalf of `actorId` for `reason`; answers the reversal entries. */
export const reverseSettlement = (input: { readonly actorId: string; readonly orderId: string; readonly reason: string }) =>
  Effect.gen(function* () {
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a correction needs a reason (1 to 500 characters)" }] }));
    }
    return yield* (yield* Transactions).run(postSettlementReversal({ ...input, reason }));
  }).pipe(withSpan("delivery.reverseSettlement"));
