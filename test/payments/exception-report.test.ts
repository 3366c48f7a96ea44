/**
 * Background work, exception reporting: once a day every merchant with open reconciliation
 * exceptions gets one ReconciliationExceptionsOpen event summarising them (counts per kind, the
 * oldest), operator items are reported under "platform", resolved ones are not counted, and a
 * repeated run of the same day announces nothing new (unique report per merchant and day, in
 * the database). The daily runs (settlement reconciliation of yesterday, this report) are
 * durable keyed jobs: scheduling them from several workers yields one job per day, and each run
 * schedules the next day's — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import "../../adapters/sql/payments/index.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { dailyExceptionReportRun, dailySettlementRun, scheduleNextDailyRun } from "../../core/payments/DailyRuns.js";
import { reconciliationExceptionsOpen, reportOpenExceptions } from "../../core/payments/ExceptionReport.js";
import type { MismatchKind } from "../../core/payments/model/ReconciliationException.js";
import { exceptionReportJob, reconcileSettlementJob } from "../../core/payments/Jobs.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { forEachDialect } from "../support/databases.js";
import { anException, newMerchant, paymentsRuntime } from "./support.js";
import { MerchantId } from "../../core/payments/model/Ids.js";

const openException = (merchantId: string | null, kind: MismatchKind, openedAt: Date) =>
  Effect.flatMap(ReconciliationRepository, (repo) =>
    repo.insertException(anException({ merchantId: merchantId === null ? null : MerchantId.make(merchantId), kind, subjectType: merchantId === null ? "unknown" : "payment_intent", openedAt })),
  );

const reportsOf = (db: SqlDatabase) =>
  db.db.selectFrom("outbox").select(["event"]).execute().then((rows) =>
    rows
      .map((r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as { type: string; tenant_id: string; data: Record<string, unknown> })
      .filter((e) => e.type === reconciliationExceptionsOpen),
  );

t.test("each merchant with open exceptions gets one report a day, counted per kind", (t) =>
  forEachDialect(t, "exception report", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const a = await newMerchant(run);
    const b = await newMerchant(run);
    const quiet = await newMerchant(run);
    const oldest = new Date("2026-11-19T08:00:00.000Z");
    await run(openException(a.merchantId, "amount", oldest));
    await run(openException(a.merchantId, "amount", new Date("2026-11-20T09:00:00.000Z")));
    await run(openException(a.merchantId, "missing", new Date("2026-11-20T10:00:00.000Z")));
    await run(openException(b.merchantId, "currency", new Date("2026-11-21T10:00:00.000Z")));
    await run(openException(null, "missing", new Date("2026-11-21T11:00:00.000Z")));
    // A resolved exception is not open any more.
    const resolved = anException({ merchantId: MerchantId.make(quiet.merchantId), providerObject: "pi_resolved_attempt_1", kind: "status", subjectType: "payment_intent", observed: null, openedAt: oldest });
    await run(
      Effect.flatMap(ReconciliationRepository, (repo) =>
        Effect.zipRight(
          repo.insertException(resolved),
          repo.markResolved({ id: resolved.id, resolvedAt: new Date(), resolution: { kind: "acknowledgement" } }),
        ),
      ),
    );

    const first = await run(reportOpenExceptions("2026-11-21"));
    t.same(first, { day: "2026-11-21", reported: 3, announced: 3, open: 5 });
    const reports = await reportsOf(db);
    const byTenant = Object.fromEntries(reports.map((e) => [e.tenant_id, e.data]));
    t.same(Object.keys(byTenant).sort(), [a.merchantId, b.merchantId, "platform"].sort(), "the merchant without open exceptions gets nothing");
    t.same(byTenant[a.merchantId], { report_day: "2026-11-21", open: 3, by_kind: { amount: 2, missing: 1 }, oldest_opened_at: oldest.toISOString() });
    t.same(byTenant[b.merchantId]?.by_kind, { currency: 1 });

    const again = await run(reportOpenExceptions("2026-11-21"));
    t.equal(again.announced, 0, "a repeated run of the same day announces nothing");
    t.equal((await reportsOf(db)).length, 3);
    const next = await run(reportOpenExceptions("2026-11-22"));
    t.equal(next.announced, 3, "the next day reports again");

    const refused = await db.db
      .updateTable("payment_exception_reports")
      .set({ open_count: 99 })
      .execute()
      .then(() => "updated", () => "refused");
    t.equal(refused, "refused", "reports are append-only in the database");
  }),
);

t.test("the daily runs are keyed jobs: one per day, and each run schedules the next", (t) =>
  forEachDialect(t, "daily runs", async (t, db) => {
    const { run, runtime } = paymentsRuntime(t, db);
    const at = Date.parse("2020-01-01T05:30:00.000Z");
    for (let worker = 0; worker < 3; worker++) {
      await run(Effect.zipRight(scheduleNextDailyRun(dailySettlementRun, at), scheduleNextDailyRun(dailyExceptionReportRun, at)));
    }
    const jobs = () =>
      db.db
        .selectFrom("jobs")
        .select(["kind", "key", "run_at", "status"])
        .where("kind", "in", [dailySettlementRun.kind, dailyExceptionReportRun.kind])
        .orderBy("kind")
        .orderBy("key")
        .execute();
    const scheduled = await jobs();
    t.same(
      scheduled.map((j) => [j.kind, j.key, new Date(j.run_at as string | Date).toISOString()]),
      [
        [dailyExceptionReportRun.kind, "day-2019-12-31", "2020-01-01T07:00:00.000Z"],
        [dailySettlementRun.kind, "day-2019-12-31", "2020-01-01T06:00:00.000Z"],
      ],
      "three workers scheduling at 05:30 yield one settlement run (06:00) and one report (07:00), both for yesterday",
    );

    // Both are due (2020): running them marks them done and schedules the next day's of each.
    const ran = await runtime.runPromise(runJobsOnce([reconcileSettlementJob, exceptionReportJob], { workerId: "test", concurrency: 1 }));
    t.equal(ran.claimed, 2);
    const after = await jobs();
    for (const kind of [dailySettlementRun.kind, dailyExceptionReportRun.kind]) {
      const mine = after.filter((j) => j.kind === kind);
      t.same(mine.filter((j) => j.key === "day-2019-12-31").map((j) => j.status), ["done"], `${kind}: the run is done`);
      const next = mine.filter((j) => j.status === "pending");
      t.equal(next.length, 1, `${kind}: exactly one next run is pending`);
      t.ok(String(next[0]?.key) > "day-2019-12-31", `${kind}: for a later day`);
    }
  }),
);
