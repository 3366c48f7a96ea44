/**
 * The reconciliation exceptions queue (spec: reconciliation -> exception opened ->
 * ReconciliationMismatchFound -> resolved by humans with an audited reversal or adjustment).
 * Opening is idempotent: (provider object, settlement window) is UNIQUE (spec, Events: "Unique
 * per provider object and settlement window"), so a repeated run opens nothing new and emits
 * nothing, and one object's several mismatches of a window are one exception carrying every kind. Mismatches are never auto-adjusted. A resolution
 * posts through the kernel ledger (a linked reversal of an existing transaction, or a new
 * balanced adjustment), records an acknowledgement, or settles a processing intent from the provider's
 * record after commit (`settle_intent`, SettleIntent.ts), gives back a hold or capture made under an
 * earlier attempt after commit (`refund_stale_capture`, RefundStaleCapture.ts), and only moves the exception from open
 * to resolved; every step appends an immutable outcome with its actor and reason.
 *
 * Who: a merchant key (the merchant's finance operator) reads its own exceptions with
 * `ledger:read` and resolves them with `reconciliation:write`; another merchant's is 404.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { emptyLedger, applyPosted, post, reversalOf, type LedgerTransaction } from "../kernel/Ledger.js";
import { Forbidden, NotFound, ValidationFailed, type InvalidCursor } from "../kernel/Errors.js";
import { isCurrency } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { Jobs } from "../../ports/Jobs.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { ReconciliationMismatchFound } from "./Events.js";
import { clearingAccount, merchantBalanceAccount, postLedger } from "./LedgerPostings.js";
import { actorOf, ownedBy, requireMerchant } from "./MerchantAccess.js";
import { ExceptionAlreadyResolved, IllegalTransition, ReversalTargetInvalid } from "./Errors.js";
import { settleIntentJobKey, settleIntentJobType } from "./SettleIntentJobType.js";
import { refundStaleCaptureJobKey, refundStaleCaptureJobType } from "./RefundStaleCaptureJobType.js";
import { attemptReference } from "./ProviderReferences.js";
import type { MismatchKind, ReconciliationException, ReconciliationOutcome } from "./model/ReconciliationException.js";
import { withSpan } from "../kernel/Span.js";
import { ReconciliationExceptionId, ReconciliationOutcomeId } from "./model/Ids.js";

/** The event a newly opened exception emits (merchant webhooks and alerting consume it). */
export const reconciliationMismatchFound = ReconciliationMismatchFound.type;

/** The scope that resolves exceptions (reading needs `ledger:read`). */
export const reconciliationWriteScope = "reconciliation:write";

/**
 * What a reconciler found about one provider object in one window: `kind` is the exception's
 * kind, `kinds` every kind found (the opening outcome, the audit record and the event carry all).
 */
export type MismatchInput = Pick<
  ReconciliationException,
  "merchantId" | "providerObject" | "settlementWindow" | "kind" | "subjectType" | "subjectId" | "expected" | "observed" | "currency"
> & { readonly kinds?: ReadonlyArray<MismatchKind> };

/**
 * Opens an exception unless one for the same (provider object, window) exists; true when it was
 * opened. Runs in the caller's transaction; emits ReconciliationMismatchFound with it.
 */
export const openReconciliationException = (
  input: MismatchInput,
  actor: string,
  reason: string,
): Effect.Effect<boolean, never, ReconciliationRepository | PaymentsRepository | Ids | Outbox> =>
  Effect.gen(function* () {
    const repo = yield* ReconciliationRepository;
    const ids = yield* Ids;
    const at = yield* now;
    const { kinds: found, ...fields } = input;
    const kinds = found ?? [input.kind];
    const exception: ReconciliationException = { ...fields, id: ReconciliationExceptionId.make(yield* ids.next), status: "open", resolution: null, openedAt: at, resolvedAt: null };
    const opened = yield* repo.insertException(exception);
    if (!opened) return false;
    yield* repo.appendOutcome({
      id: ReconciliationOutcomeId.make(yield* ids.next),
      exceptionId: exception.id,
      merchantId: input.merchantId,
      action: "opened",
      actor,
      reason,
      ledgerSource: null,
      data: { kind: input.kind, kinds, settlement_window: input.settlementWindow },
      createdAt: at,
    });
    const event = yield* ReconciliationMismatchFound.make({
      tenant_id: input.merchantId ?? "platform",
      aggregate_id: exception.id,
      aggregate_version: 1,
      actor_id: actor,
      data: {
        reconciliation_exception_id: exception.id,
        kind: input.kind,
        kinds,
        provider_object: input.providerObject,
        settlement_window: input.settlementWindow,
        subject_type: input.subjectType,
        subject_id: input.subjectId,
      },
    });
    yield* (yield* Outbox).append([event]);
    yield* audit({
      merchantId: input.merchantId,
      actor,
      action: "reconciliation_exception.opened",
      subjectType: "reconciliation_exception",
      subjectId: exception.id,
      reason,
      data: { kind: input.kind, kinds, provider_object: input.providerObject },
    });
    return true;
  });

/** Lists the caller's exceptions, newest first (scope ledger:read). */
export const listReconciliationExceptions = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number; readonly status?: "open" | "resolved" | undefined },
): Effect.Effect<Page<ReconciliationException>, Forbidden | InvalidCursor, ReconciliationRepository> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "ledger:read");
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* ReconciliationRepository).listExceptions({
      merchantId: caller.merchantId,
      ...(page.status === undefined ? {} : { status: page.status }),
      ...(before === undefined ? {} : { before }),
      limit: page.limit + 1,
    });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listReconciliationExceptions"));

/** One of the caller's exceptions with its outcomes (scope ledger:read). */
export const getReconciliationException = (
  principal: Principal,
  id: ReconciliationExceptionId,
): Effect.Effect<{ readonly exception: ReconciliationException; readonly outcomes: ReadonlyArray<ReconciliationOutcome> }, Forbidden | NotFound, ReconciliationRepository> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "ledger:read");
    const repo = yield* ReconciliationRepository;
    const exception = yield* ownedBy(caller, "reconciliation_exception", toOwned(yield* repo.findException(id)));
    return { exception, outcomes: yield* repo.listOutcomes(exception.id) };
  }).pipe(withSpan("Payments.getReconciliationException"));

// An exception without a merchant is nobody's here (an operator item): 404 like an unknown id.
const toOwned = (found: ReconciliationException | null): (ReconciliationException & { merchantId: string }) | null =>
  found !== null && found.merchantId !== null ? (found as ReconciliationException & { merchantId: string }) : null;

/** How a human resolves an exception. */
export type Resolution =
  /** Reverses one of the merchant's ledger transactions (linked, exactly negated, at most once). */
  | { readonly kind: "reversal"; readonly ledgerSource: string }
  /** Posts a balanced adjustment: positive credits the merchant, negative debits it. */
  | { readonly kind: "adjustment"; readonly amountMinor: number; readonly currency?: string | undefined }
  /** Records that our ledger is right as it stands (no posting). */
  | { readonly kind: "acknowledgement" }
  /** Settles the exception's payment intent, still processing, from a fresh provider lookup after commit (SettleIntent.ts). */
  | { readonly kind: "settle_intent" }
  /**
   * Gives back what the provider holds or took under an earlier attempt of the exception's intent,
   * after commit (RefundStaleCapture.ts): voids a hold, refunds a capture. One kind for both: the
   * provider's record when the job runs decides which.
   */
  | { readonly kind: "refund_stale_capture" };

/** The ledger source of an exception's resolution posting. */
export const resolutionSource = (exceptionId: string, kind: "reversal" | "adjustment"): string => `reconciliation:${exceptionId}:${kind}`;

/** Resolves one of the caller's open exceptions (scope reconciliation:write); `reason` is audited. */
export const resolveReconciliationException = (
  principal: Principal,
  id: ReconciliationExceptionId,
  resolution: Resolution,
  reason: string,
): Effect.Effect<
  ReconciliationException,
  Forbidden | NotFound | ExceptionAlreadyResolved | ReversalTargetInvalid | ValidationFailed | IllegalTransition,
  ReconciliationRepository | PaymentsRepository | Transactions | Ids | Jobs
> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal);
    if (!caller.scopes.includes(reconciliationWriteScope)) {
      return yield* Effect.fail(new Forbidden({ detail: `This API key lacks the ${reconciliationWriteScope} scope.` }));
    }
    const trimmed = yield* resolutionReason(reason);
    const actor = actorOf(caller);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const repo = yield* ReconciliationRepository;
        const exception = yield* ownedBy(caller, "reconciliation_exception", toOwned(yield* repo.findException(id, { forUpdate: true })));
        yield* requireOpen(exception);
        if (resolution.kind === "settle_intent") yield* requireIntentProcessing(exception);
        if (resolution.kind === "refund_stale_capture") yield* requireEarlierAttempt(exception);
        const posting = yield* resolutionPosting(exception, resolution);
        if (posting !== null) yield* postLedger(exception.merchantId, posting).pipe(Effect.orDie);
        const resolved = yield* recordResolution(exception, resolution, posting, trimmed, actor);
        // The provider is asked after commit, once per exception (the job's key).
        if (resolution.kind === "settle_intent") yield* settleIntentJobType.schedule({ exception_id: exception.id }, { key: settleIntentJobKey(exception.id), runAt: yield* now });
        if (resolution.kind === "refund_stale_capture") {
          yield* refundStaleCaptureJobType.schedule({ exception_id: exception.id }, { key: refundStaleCaptureJobKey(exception.id), runAt: yield* now });
        }
        return resolved;
      }),
    );
  }).pipe(withSpan("Payments.resolveReconciliationException"));

/** `settle_intent` resolves an exception about a payment intent that is still processing (read under lock). */
const requireIntentProcessing = (exception: ReconciliationException & { merchantId: string }) =>
  Effect.gen(function* () {
    if (exception.subjectType !== "payment_intent" || exception.subjectId === null) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "resolution", message: "settle_intent resolves an exception about a payment intent" }] }));
    }
    const intent = yield* (yield* PaymentsRepository).findIntent(exception.subjectId, { forUpdate: true });
    if (intent === null || intent.merchantId !== exception.merchantId) return yield* Effect.dieMessage(`exception ${exception.id}: intent ${exception.subjectId} vanished`);
    if (intent.status !== "processing") {
      return yield* Effect.fail(
        new IllegalTransition({ from: intent.status, trigger: "settle_intent", detail: `The payment intent is ${intent.status}; settle_intent settles a processing one.` }),
      );
    }
  });

/** `refund_stale_capture` resolves an exception about an earlier attempt of one of the merchant's intents (its reference is the object). */
const requireEarlierAttempt = (exception: ReconciliationException & { merchantId: string }) =>
  Effect.gen(function* () {
    const refused = new ValidationFailed({ errors: [{ path: "resolution", message: "refund_stale_capture resolves an exception about an earlier attempt of a payment intent" }] });
    if (exception.subjectType !== "payment_intent" || exception.subjectId === null) return yield* Effect.fail(refused);
    const intent = yield* (yield* PaymentsRepository).findIntent(exception.subjectId);
    if (intent === null || intent.merchantId !== exception.merchantId) return yield* Effect.fail(refused);
    const earlier = Array.from({ length: Math.max(0, intent.attemptCount - 1) }, (_, i) => attemptReference(intent.id, i + 1));
    if (!earlier.includes(exception.providerObject)) return yield* Effect.fail(refused);
  });

/** A resolution's reason as recorded: trimmed, 1 to 500 characters. */
export const resolutionReason = (reason: string): Effect.Effect<string, ValidationFailed> => {
  const trimmed = reason.trim();
  return trimmed.length >= 1 && trimmed.length <= 500
    ? Effect.succeed(trimmed)
    : Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "must be 1 to 500 characters" }] }));
};

/** Refuses an exception that is not open (a resolution is never edited). */
export const requireOpen = (exception: ReconciliationException): Effect.Effect<void, ExceptionAlreadyResolved> =>
  exception.status === "open"
    ? Effect.void
    : Effect.fail(new ExceptionAlreadyResolved({ detail: "The exception is resolved; a resolution is never edited." }));

/**
 * The one resolve step of merchants and platform operators, in the caller's transaction on an
 * exception read under lock (its posting, if any, already posted): moves it from open to resolved
 * (conditionally: a concurrent resolution makes this one 409), appends the outcome and the audit
 * record with `actor` and `reason`.
 */
export const recordResolution = (
  exception: ReconciliationException,
  resolution: Resolution,
  posting: LedgerTransaction | null,
  reason: string,
  actor: string,
): Effect.Effect<ReconciliationException, ExceptionAlreadyResolved, ReconciliationRepository | PaymentsRepository | Ids> =>
  Effect.gen(function* () {
    const repo = yield* ReconciliationRepository;
    const at = yield* now;
    const recorded = {
      kind: resolution.kind,
      ledger_source: posting?.source ?? null,
      reason,
      actor,
      ...(resolution.kind === "adjustment" ? { amount_minor: resolution.amountMinor } : {}),
      ...(resolution.kind === "reversal" ? { reverses: resolution.ledgerSource } : {}),
    };
    const moved = yield* repo.markResolved({ id: exception.id, resolvedAt: at, resolution: recorded });
    if (!moved) return yield* Effect.fail(new ExceptionAlreadyResolved({ detail: "The exception was resolved concurrently." }));
    yield* repo.appendOutcome({
      id: ReconciliationOutcomeId.make(yield* (yield* Ids).next),
      exceptionId: exception.id,
      merchantId: exception.merchantId,
      action: "resolved",
      actor,
      reason,
      ledgerSource: posting?.source ?? null,
      data: recorded,
      createdAt: at,
    });
    yield* audit({
      merchantId: exception.merchantId,
      actor,
      action: "reconciliation_exception.resolved",
      subjectType: "reconciliation_exception",
      subjectId: exception.id,
      reason,
      data: recorded,
    });
    return { ...exception, status: "resolved" as const, resolution: recorded, resolvedAt: at };
  });

/**
 * The posting of a resolution, checked by the kernel ledger: a reversal must name one of the
 * merchant's transactions, negate it exactly and be its only reversal; an adjustment balances
 * between the merchant's clearing and balance accounts. Null for an acknowledgement.
 */
const resolutionPosting = (
  exception: ReconciliationException & { merchantId: string },
  resolution: Resolution,
): Effect.Effect<LedgerTransaction | null, ReversalTargetInvalid | ValidationFailed, ReconciliationRepository> =>
  Effect.gen(function* () {
    switch (resolution.kind) {
      case "acknowledgement":
      case "settle_intent":
      case "refund_stale_capture":
        return null;
      case "reversal": {
        // Locked: exceptions racing to reverse the same transaction take turns, and the later ones find it reversed.
        const found = yield* (yield* ReconciliationRepository).findLedgerTransaction(resolution.ledgerSource, { forUpdate: true });
        if (found === null || found.merchantId !== exception.merchantId) {
          return yield* Effect.fail(new ReversalTargetInvalid({ detail: "No such ledger transaction of this merchant." }));
        }
        if (found.transaction.reverses !== undefined) {
          return yield* Effect.fail(new ReversalTargetInvalid({ detail: "A reversal is not reversed again; post an adjustment instead." }));
        }
        // The kernel ledger decides: exact negation, linked, and at most one reversal.
        let model = applyPosted(emptyLedger, found.transaction);
        if (found.reversedBy !== null) model = { ...model, reversedBy: new Map([[found.transaction.source, found.reversedBy]]) };
        const reversal = reversalOf(found.transaction, resolutionSource(exception.id, "reversal"));
        yield* post(model, reversal).pipe(
          Effect.mapError((error) =>
            error._tag === "ValidationFailed" ? error : new ReversalTargetInvalid({ detail: error.detail ?? "The reversal is not valid." }),
          ),
        );
        return reversal;
      }
      case "adjustment": {
        const currency = resolution.currency ?? exception.currency;
        if (currency === null || !isCurrency(currency)) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "currency", message: "expected an ISO 4217 currency code" }] }));
        }
        if (!Number.isSafeInteger(resolution.amountMinor) || resolution.amountMinor === 0) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "amount_minor", message: "must be a non-zero amount of minor units" }] }));
        }
        return {
          source: resolutionSource(exception.id, "adjustment"),
          entries: [
            { account: clearingAccount(exception.merchantId), amount_minor: resolution.amountMinor, currency },
            { account: merchantBalanceAccount(exception.merchantId), amount_minor: -resolution.amountMinor, currency },
          ],
        };
      }
    }
  });
