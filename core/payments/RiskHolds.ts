/**
 * Risk analysts (spec, Payment service, Authentication 2: "Risk analyst: risk signals and holds,
 * with no secret or raw instrument access"): a merchant key with `risk:write` places and
 * releases holds on the merchant's intents; one with `risk:read` lists holds and reads an
 * intent's risk signals. Neither scope reaches a client secret, a payment method token or a
 * provider id, and neither moves money. While an intent is held, confirm and capture answer
 * 409 `intent_on_hold` (see requireNotHeld); the hold is checked under the intent's lock, which
 * placing a hold takes too, so a hold and a confirm are ordered: the later one sees the earlier.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { Conflict, type Forbidden, type InvalidCursor, type NotFound } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { RiskHolds } from "../../ports/payments/RiskHolds.js";
import { RiskSignals, type IntentRiskSignals } from "../../ports/payments/RiskSignals.js";
import { audit } from "./Audit.js";
import { loadOwnedIntent } from "./IntentRecords.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import { RiskHoldId, type PaymentIntentId } from "./model/Ids.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import type { RiskHold } from "./model/RiskHold.js";

/** Statuses in which no more money can move by confirm or capture: nothing to hold. */
const settledStatuses: ReadonlyArray<PaymentIntent["status"]> = ["succeeded", "canceled"];

/**
 * Fails with 409 `intent_on_hold` when `intent` has an active hold. Call it in the transaction
 * that locked the intent, before a new provider attempt or a capture.
 */
export const requireNotHeld = (intent: PaymentIntent): Effect.Effect<void, Conflict, RiskHolds> =>
  Effect.flatMap(RiskHolds, (holds) => holds.active(intent.id)).pipe(
    Effect.flatMap((hold) =>
      hold === null
        ? Effect.void
        : Effect.fail(
            new Conflict({
              code: "intent_on_hold",
              detail: "A risk analyst holds this payment intent: it cannot be confirmed or captured until the hold is released.",
            }),
          ),
    ),
  );

/** The audit record of a hold's placement or release, on its intent. */
const auditHold = (hold: RiskHold, action: "payment_intent.held" | "payment_intent.hold_released", actor: string, reason: string) =>
  audit({ merchantId: hold.merchantId, actor, action, subjectType: "payment_intent", subjectId: hold.intentId, reason, data: { hold_id: hold.id } });

type HoldChange = Effect.Effect<RiskHold, Forbidden | NotFound | Conflict, PaymentsRepository | RiskHolds | Transactions | Ids>;

/** Runs `change` for a risk:write caller on their intent, locked, in one transaction (as confirm and capture lock it). */
const onLockedIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
  change: (intent: PaymentIntent, actor: string) => Effect.Effect<RiskHold, Conflict, RiskHolds | PaymentsRepository | Ids>,
): HoldChange =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "risk:write");
    return yield* (yield* Transactions).run(Effect.flatMap(loadOwnedIntent(caller, intentId, true), (intent) => change(intent, actorOf(caller))));
  });

/** Places a hold on the caller's intent (scope risk:write); `reason` is audited. */
export const placeHold = (principal: Principal, intentId: PaymentIntentId, reason: string): HoldChange =>
  onLockedIntent(principal, intentId, (intent, actor) =>
    Effect.gen(function* () {
      if (settledStatuses.includes(intent.status)) {
        return yield* Effect.fail(new Conflict({ code: "intent_not_holdable", detail: `A ${intent.status} payment intent moves no more money by confirm or capture: nothing to hold.` }));
      }
      const hold: RiskHold = {
        id: RiskHoldId.make(yield* (yield* Ids).next),
        intentId: intent.id,
        merchantId: intent.merchantId,
        reason,
        placedBy: actor,
        placedAt: yield* now,
        releasedBy: null,
        releaseReason: null,
        releasedAt: null,
      };
      if (!(yield* (yield* RiskHolds).place(hold))) {
        return yield* Effect.fail(new Conflict({ code: "intent_already_on_hold", detail: "The payment intent is already on hold." }));
      }
      yield* auditHold(hold, "payment_intent.held", actor, reason);
      return hold;
    }),
  ).pipe(withSpan("Payments.placeHold"));

/** Releases the active hold of the caller's intent (scope risk:write); `reason` is audited. */
export const releaseHold = (principal: Principal, intentId: PaymentIntentId, reason: string): HoldChange =>
  onLockedIntent(principal, intentId, (intent, actor) =>
    Effect.gen(function* () {
      const released = yield* (yield* RiskHolds).release({ merchantId: intent.merchantId, intentId: intent.id, releasedBy: actor, reason, at: yield* now });
      if (released === null) {
        return yield* Effect.fail(new Conflict({ code: "intent_not_on_hold", detail: "The payment intent has no active hold." }));
      }
      yield* auditHold(released, "payment_intent.hold_released", actor, reason);
      return released;
    }),
  ).pipe(withSpan("Payments.releaseHold"));

/** The caller's merchant's holds (active only when `activeOnly`), newest first, as keyset pages (scope risk:read). */
export const listHolds = (
  principal: Principal,
  query: { readonly activeOnly: boolean; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<RiskHold>, Forbidden | InvalidCursor, RiskHolds> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "risk:read");
    const before = query.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, query.cursor))[0];
    const rows = yield* (yield* RiskHolds).list({
      merchantId: caller.merchantId,
      activeOnly: query.activeOnly,
      ...(before === undefined ? {} : { before }),
      limit: query.limit + 1,
    });
    return pageFrom(rows, query.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listHolds"));

/** An intent's risk picture: its state, its history's signals and its active hold. */
export interface IntentRisk {
  readonly intent: PaymentIntent;
  readonly signals: IntentRiskSignals;
  readonly activeHold: RiskHold | null;
}

/** The risk signals of the caller's intent (scope risk:read); another merchant's intent is 404. */
export const intentRisk = (
  principal: Principal,
  intentId: PaymentIntentId,
): Effect.Effect<IntentRisk, Forbidden | NotFound, PaymentsRepository | RiskHolds | RiskSignals> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "risk:read");
    const intent = yield* loadOwnedIntent(caller, intentId, false);
    const signals = yield* (yield* RiskSignals).ofIntent(intent.id);
    const activeHold = yield* (yield* RiskHolds).active(intent.id);
    return { intent, signals, activeHold };
  }).pipe(withSpan("Payments.intentRisk"));
