/**
 * The quota reconciliation job (kind `files.quota_reconciliation`, keyed by workspace): recomputes
 * used bytes from the stored versions and reserved bytes from the open sessions, under the drive
 * lock, and reports any drift from the counters. It reports, it does not rewrite: a drift is a
 * bug or a manual change an operator must look at (docs/decisions.md, File storage).
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { withSpan } from "../kernel/Span.js";

/** What the reconciliation found. */
export interface QuotaDrift {
  readonly workspaceId: string;
  readonly countedUsedBytes: number;
  readonly recomputedUsedBytes: number;
  readonly countedReservedBytes: number;
  readonly recomputedReservedBytes: number;
  readonly drift: boolean;
}

/** Recomputes one workspace's usage and compares it with its counters. */
export const reconcileQuota = (workspaceId: string) =>
  Effect.flatMap(Transactions, (tx) =>
    tx.run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        const drive = yield* drives.lock(workspaceId);
        if (drive === null) return null;
        const usage = yield* drives.usage(workspaceId);
        const report: QuotaDrift = {
          workspaceId,
          countedUsedBytes: drive.usedBytes,
          recomputedUsedBytes: usage.versionBytes,
          countedReservedBytes: drive.reservedBytes,
          recomputedReservedBytes: usage.openReservedBytes,
          drift: drive.usedBytes !== usage.versionBytes || drive.reservedBytes !== usage.openReservedBytes,
        };
        if (report.drift) yield* Effect.logWarning("files: quota drift").pipe(Effect.annotateLogs({ ...report }));
        return report;
      }),
    ),
  ).pipe(withSpan("files.reconcileQuota"));

export const quotaReconciliationJob = defineJob({
  kind: "files.quota_reconciliation",
  payload: Schema.Struct({ workspace_id: Schema.String }),
  handle: (payload) => Effect.asVoid(reconcileQuota(payload.workspace_id)),
});
