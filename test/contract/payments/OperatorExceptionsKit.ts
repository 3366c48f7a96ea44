/**
 * Contract kit for OperatorExceptions: the operator sees the reconciliation exceptions of every
 * merchant and the unmatched ones of none, newest first, of a status when given, at most `limit`.
 */
import { Effect } from "effect";
import { OperatorExceptions } from "../../../ports/payments/OperatorExceptions.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../../ports/payments/ReconciliationRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedMerchant, uid } from "./fixtures.js";
import { exceptionRecord } from "./ReconciliationRepositoryKit.js";

/** The ports this kit needs (exceptions are written through the ReconciliationRepository). */
export type OperatorExceptionsKitPorts = OperatorExceptions | ReconciliationRepository | PaymentsRepository;

const listAll = (req: { readonly status?: "open" | "resolved"; readonly limit: number }) =>
  Effect.flatMap(OperatorExceptions, (r) => r.listAll(req)).pipe(Effect.map((rows) => rows.map((row) => row.id)));

/** The cases of the operator exceptions kit. */
export const operatorExceptionsCases: ReadonlyArray<KitCase<OperatorExceptionsKitPorts>> = [
  {
    name: "operator exceptions: every merchant's exceptions and those of none, newest first, by status, at most `limit`",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      const b = await run(seedMerchant(2));
      await run(
        Effect.flatMap(ReconciliationRepository, (r) =>
          Effect.zipRight(
            Effect.forEach([exceptionRecord(1, a.id), exceptionRecord(2, b.id), exceptionRecord(3, null, { subjectType: "unknown", subjectId: null }), exceptionRecord(4, a.id)], (e) =>
              r.insertException(e),
            ),
            r.markResolved({ id: uid("rex", 2), resolvedAt: at(10), resolution: { action: "written_off" } }),
          ),
        ),
      );
      t.same(await run(listAll({ limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 2), uid("rex", 1)]);
      t.same(await run(listAll({ status: "open", limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 1)]);
      t.same(await run(listAll({ status: "resolved", limit: 10 })), [uid("rex", 2)]);
      t.same(await run(listAll({ limit: 2 })), [uid("rex", 4), uid("rex", 3)]);
      const [row] = await run(Effect.flatMap(OperatorExceptions, (r) => r.listAll({ status: "resolved", limit: 1 })));
      t.same(row, { ...exceptionRecord(2, b.id), status: "resolved", resolvedAt: at(10), resolution: { action: "written_off" } }, "the record as stored");
    },
  },
];

/** Runs the operator exceptions kit. */
export const operatorExceptionsSuite = (options: SuiteOptions<OperatorExceptionsKitPorts>): Promise<unknown> => runCases(options, operatorExceptionsCases);
