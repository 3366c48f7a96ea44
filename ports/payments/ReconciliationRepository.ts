/**
 * Storage of reconciliation: the exceptions queue (UNIQUE provider object, settlement window and
 * kind, so a mismatch is opened once however often a run repeats), read per merchant or, by the
 * operator, across all of them; the append-only log of reconciliation outcomes; and the reads a
 * settlement comparison needs. Joins the open transaction.
 */
import { Context, Effect } from "effect";
import type { ExceptionReport } from "../../core/payments/model/ExceptionReport.js";
import type { LedgerTransaction } from "../../core/kernel/Ledger.js";
import type {
  ReconciliationException,
  ReconciliationOutcome,
  SettledObject,
} from "../../core/payments/model/ReconciliationException.js";
import type { LockOptions } from "./PaymentsRepository.js";
import type { MerchantId } from "../../core/payments/model/Ids.js";

/** Open exceptions of one merchant and kind. */
export interface OpenExceptionGroup {
  readonly merchantId: MerchantId | null;
  readonly kind: string;
  readonly count: number;
  readonly oldestOpenedAt: Date;
}

/** The reconciliation repository. */
export interface ReconciliationRepository {
  /** Opens an exception; false when one with the same (provider object, window, kind) exists. */
  readonly insertException: (exception: ReconciliationException) => Effect.Effect<boolean>;
  readonly findException: (id: string, options?: LockOptions) => Effect.Effect<ReconciliationException | null>;
  /** Moves an open exception to resolved; false when it was not open any more. */
  readonly markResolved: (req: {
    readonly id: string;
    readonly resolvedAt: Date;
    readonly resolution: Readonly<Record<string, unknown>>;
  }) => Effect.Effect<boolean>;
  /** A merchant's exceptions (null: the platform items, of no merchant), newest first, strictly before id `before`. */
  readonly listExceptions: (req: {
    readonly merchantId: string | null;
    readonly status?: "open" | "resolved";
    readonly before?: string;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<ReconciliationException>>;
  /**
   * The operator's view (`domainkit settlement exceptions`): every merchant's exceptions and the
   * unmatched ones of none, newest first, of `status` when given, at most `limit`.
   */
  readonly listAllExceptions: (req: {
    readonly status?: "open" | "resolved";
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<ReconciliationException>>;
  /** Appends one immutable outcome (opened, resolved) with its actor and reason. */
  readonly appendOutcome: (outcome: ReconciliationOutcome) => Effect.Effect<void>;
  readonly listOutcomes: (exceptionId: string) => Effect.Effect<ReadonlyArray<ReconciliationOutcome>>;
  /** Captures and refunds our ledger posted in [from, to), as the settlement file should list them. */
  readonly settledInWindow: (req: { readonly from: Date; readonly to: Date }) => Effect.Effect<ReadonlyArray<SettledObject>>;
  /** Our object under a provider reference (an attempt's or a refund's), whenever it was posted. */
  readonly settledByReference: (reference: string) => Effect.Effect<SettledObject | null>;
  /** Open exceptions grouped by merchant (null: operator items) and kind, with the oldest opening. */
  readonly openExceptionSummary: () => Effect.Effect<ReadonlyArray<OpenExceptionGroup>>;
  /** Records the exception report of `merchantKey` for `day`; false when that report exists. */
  readonly recordExceptionReport: (report: ExceptionReport) => Effect.Effect<boolean>;
  /**
   * A posted ledger transaction by its source, with the source of its reversal if any. With
   * `forUpdate` its row is locked first (until the caller's transaction ends), so the reversal read
   * after the lock sees a reversal a concurrent transaction committed meanwhile.
   */
  readonly findLedgerTransaction: (source: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<{
    readonly merchantId: MerchantId;
    readonly transaction: LedgerTransaction;
    readonly reversedBy: string | null;
  } | null>;
}
export const ReconciliationRepository = Context.GenericTag<ReconciliationRepository>("domainkit/payments/ReconciliationRepository");
