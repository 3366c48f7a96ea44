/**
 * The platform's reconciliation exceptions: those of no merchant, opened for a settlement row whose
 * reference we never issued (SettlementReconciliation.ts). No merchant key reaches them (404), so
 * platform operators (PLATFORM_OPERATORS) list them and resolve them. The only resolution is an
 * acknowledgement: there is no merchant ledger to post to (payments migration 28 holds this in the
 * database). Resolving goes through the merchants' resolve step (`recordResolution`), audited with
 * the operator as actor; a merchant's exception is 404 here.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { NotFound, type Forbidden, type InvalidCursor, type ValidationFailed } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { operatorActor, requireOperator, type OperatorPolicy } from "./OperatorReplay.js";
import { recordResolution, requireOpen, resolutionReason } from "./ReconciliationExceptions.js";
import type { ExceptionAlreadyResolved } from "./Errors.js";
import type { ReconciliationException } from "./model/ReconciliationException.js";
import type { ReconciliationExceptionId } from "./model/Ids.js";
import { withSpan } from "../kernel/Span.js";

/** One page of the platform's exceptions, newest first (platform operators only). */
export const listPlatformReconciliationExceptions = (
  principal: Principal,
  policy: OperatorPolicy,
  page: { readonly cursor?: string | undefined; readonly limit: number; readonly status?: "open" | "resolved" | undefined },
): Effect.Effect<Page<ReconciliationException>, Forbidden | InvalidCursor, ReconciliationRepository> =>
  Effect.gen(function* () {
    yield* requireOperator(principal, policy);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* ReconciliationRepository).listExceptions({
      merchantId: null,
      ...(page.status === undefined ? {} : { status: page.status }),
      ...(before === undefined ? {} : { before }),
      limit: page.limit + 1,
    });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listPlatformReconciliationExceptions"));

/** Acknowledges one open platform exception with a reason (platform operators only). */
export const acknowledgePlatformReconciliationException = (
  principal: Principal,
  policy: OperatorPolicy,
  id: ReconciliationExceptionId,
  reason: string,
): Effect.Effect<
  ReconciliationException,
  Forbidden | NotFound | ExceptionAlreadyResolved | ValidationFailed,
  ReconciliationRepository | PaymentsRepository | Transactions | Ids
> =>
  Effect.gen(function* () {
    const operator = yield* requireOperator(principal, policy);
    const trimmed = yield* resolutionReason(reason);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const found = yield* (yield* ReconciliationRepository).findException(id, { forUpdate: true });
        // A merchant's exception is the merchant's to resolve: unknown here, like a missing one.
        if (found === null || found.merchantId !== null) {
          return yield* Effect.fail(new NotFound({ resource: "reconciliation_exception", detail: "No such platform reconciliation exception." }));
        }
        yield* requireOpen(found);
        return yield* recordResolution(found, { kind: "acknowledgement" }, null, trimmed, operatorActor(operator));
      }),
    );
  }).pipe(withSpan("Payments.acknowledgePlatformReconciliationException"));
