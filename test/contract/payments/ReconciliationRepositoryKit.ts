/**
 * Contract kit for the ReconciliationRepository: an exception is opened once per (provider
 * object, settlement window) however often a run repeats, whatever its kind; it is resolved once (with its
 * time and resolution); a merchant's exceptions are listed newest first, by status, before
 * `before`, its own only; the operator lists every merchant's and those of none; outcomes are appended and listed in order; open exceptions are grouped
 * by merchant and kind; an exception report is recorded once per merchant key and day; a posted
 * ledger transaction is found by its source with the source of its reversal.
 */
import { Effect } from "effect";
import type { ReconciliationException, ReconciliationOutcome } from "../../../core/payments/model/ReconciliationException.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../../ports/payments/ReconciliationRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedMerchant, uid } from "./fixtures.js";
import { MerchantId, ReconciliationExceptionId, ReconciliationOutcomeId } from "../../../core/payments/model/Ids.js";

/** The ports this kit needs (merchants and ledger postings are written through the PaymentsRepository). */
export type ReconciliationRepositoryKitPorts = ReconciliationRepository | PaymentsRepository;

const recon = <A>(f: (r: ReconciliationRepository) => Effect.Effect<A>) => Effect.flatMap(ReconciliationRepository, f);
const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id);

/** Open exception `n` of merchant `merchantId` on provider object `pp_<object>`. */
export const exceptionRecord = (
  n: number,
  merchantId: MerchantId | null,
  overrides: Partial<ReconciliationException> = {},
): ReconciliationException => ({
  id: ReconciliationExceptionId.make(uid("rex", n)),
  merchantId,
  providerObject: `pp_${n}`,
  settlementWindow: "2030-01-01",
  kind: "amount",
  subjectType: "payment_intent",
  subjectId: uid("pi", n),
  expected: { amountMinor: 1000 },
  observed: { amountMinor: 900 },
  currency: "USD",
  status: "open",
  resolution: null,
  openedAt: at(n),
  resolvedAt: null,
  ...overrides,
});

const insertAll = (list: ReadonlyArray<ReconciliationException>) => recon((r) => Effect.forEach(list, (e) => r.insertException(e)));

/** The cases of the reconciliation repository kit. */
export const reconciliationRepositoryCases: ReadonlyArray<KitCase<ReconciliationRepositoryKitPorts>> = [
  {
    name: "reconciliation: an exception is opened once per (provider object, window), whatever its kind; another window is its own",
    run: async (t, run) => {
      const m = await run(seedMerchant(1));
      t.same(await run(insertAll([exceptionRecord(1, m.id)])), [true]);
      t.same(await run(recon((r) => r.findException(uid("rex", 1)))), exceptionRecord(1, m.id), "read back as written");
      const again = exceptionRecord(2, m.id, { providerObject: "pp_1", observed: { amountMinor: 1 } });
      t.same(await run(insertAll([again])), [false], "the same subject and kind again");
      t.equal(await run(recon((r) => r.findException(uid("rex", 2)))), null, "nothing written");
      t.same(
        await run(insertAll([exceptionRecord(3, m.id, { providerObject: "pp_1", kind: "status" }), exceptionRecord(4, m.id, { providerObject: "pp_1", settlementWindow: "2030-01-02" })])),
        [false, true],
        "another kind for the same object and window is the same exception; another window is its own",
      );
      t.equal(await run(recon((r) => r.findException(uid("rex", 9), { forUpdate: true }))), null);
    },
  },
  {
    name: "reconciliation: an open exception is resolved once, with its time and resolution",
    run: async (t, run) => {
      const m = await run(seedMerchant(1));
      await run(insertAll([exceptionRecord(1, m.id)]));
      t.equal(await run(recon((r) => r.markResolved({ id: uid("rex", 1), resolvedAt: at(100), resolution: { action: "adjusted" } }))), true);
      t.same(await run(recon((r) => r.findException(uid("rex", 1), { forUpdate: true }))), exceptionRecord(1, m.id, { status: "resolved", resolvedAt: at(100), resolution: { action: "adjusted" } }));
      t.equal(await run(recon((r) => r.markResolved({ id: uid("rex", 1), resolvedAt: at(200), resolution: { action: "again" } }))), false, "not open any more");
      t.same((await run(recon((r) => r.findException(uid("rex", 1)))))?.resolution, { action: "adjusted" }, "the first resolution stands");
      t.equal(await run(recon((r) => r.markResolved({ id: uid("rex", 9), resolvedAt: at(200), resolution: {} }))), false, "unknown");
    },
  },
  {
    name: "reconciliation: a merchant's exceptions are listed newest first, by status, before `before`, its own only",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      const b = await run(seedMerchant(2));
      await run(insertAll([exceptionRecord(1, a.id), exceptionRecord(2, b.id), exceptionRecord(3, a.id), exceptionRecord(4, a.id), exceptionRecord(5, null)]));
      await run(recon((r) => r.markResolved({ id: uid("rex", 3), resolvedAt: at(10), resolution: {} })));
      const list = (req: { status?: "open" | "resolved"; before?: string; limit: number }) => run(recon((r) => r.listExceptions({ merchantId: a.id, ...req })));
      t.same(ids(await list({ limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 1)]);
      t.same(ids(await list({ status: "open", limit: 10 })), [uid("rex", 4), uid("rex", 1)]);
      t.same(ids(await list({ status: "resolved", limit: 10 })), [uid("rex", 3)]);
      t.same(ids(await list({ before: uid("rex", 4), limit: 1 })), [uid("rex", 3)]);
      t.same(ids(await run(recon((r) => r.listExceptions({ merchantId: b.id, limit: 10 })))), [uid("rex", 2)]);
    },
  },
  {
    name: "reconciliation: the platform's exceptions (of no merchant) are listed newest first, by status, before `before`, and no merchant's",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      await run(insertAll([exceptionRecord(1, null), exceptionRecord(2, a.id), exceptionRecord(3, null), exceptionRecord(4, null)]));
      await run(recon((r) => r.markResolved({ id: uid("rex", 3), resolvedAt: at(10), resolution: { kind: "acknowledgement", ledger_source: null } })));
      const list = (req: { status?: "open" | "resolved"; before?: string; limit: number }) => run(recon((r) => r.listExceptions({ merchantId: null, ...req })));
      t.same(ids(await list({ limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 1)]);
      t.same(ids(await list({ status: "open", limit: 10 })), [uid("rex", 4), uid("rex", 1)]);
      t.same(ids(await list({ status: "resolved", limit: 10 })), [uid("rex", 3)]);
      t.same(ids(await list({ before: uid("rex", 4), limit: 1 })), [uid("rex", 3)]);
    },
  },
  {
    name: "reconciliation: the operator lists every merchant's exceptions and those of none, newest first, by status, at most `limit`",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      const b = await run(seedMerchant(2));
      await run(
        Effect.zipRight(
          insertAll([exceptionRecord(1, a.id), exceptionRecord(2, b.id), exceptionRecord(3, null, { subjectType: "unknown", subjectId: null }), exceptionRecord(4, a.id)]),
          recon((r) => r.markResolved({ id: uid("rex", 2), resolvedAt: at(10), resolution: { action: "written_off" } })),
        ),
      );
      const listAll = (req: { readonly status?: "open" | "resolved"; readonly limit: number }) => run(recon((r) => r.listAllExceptions(req)));
      t.same(ids(await listAll({ limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 2), uid("rex", 1)]);
      t.same(ids(await listAll({ status: "open", limit: 10 })), [uid("rex", 4), uid("rex", 3), uid("rex", 1)]);
      t.same(ids(await listAll({ status: "resolved", limit: 10 })), [uid("rex", 2)]);
      t.same(ids(await listAll({ limit: 2 })), [uid("rex", 4), uid("rex", 3)]);
      t.same(
        await listAll({ status: "resolved", limit: 1 }),
        [{ ...exceptionRecord(2, b.id), status: "resolved", resolvedAt: at(10), resolution: { action: "written_off" } }],
        "the record as stored",
      );
    },
  },
  {
    name: "reconciliation: outcomes are appended and listed in order, per exception",
    run: async (t, run) => {
      const m = await run(seedMerchant(1));
      await run(insertAll([exceptionRecord(1, m.id), exceptionRecord(2, m.id)]));
      const outcome = (n: number, exceptionId: string, action: "opened" | "resolved"): ReconciliationOutcome => ({
        id: ReconciliationOutcomeId.make(uid("rou", n)),
        exceptionId: ReconciliationExceptionId.make(exceptionId),
        merchantId: m.id,
        action,
        actor: action === "opened" ? "system" : "operator-1",
        reason: `${action} ${n}`,
        ledgerSource: null,
        data: { n, list: [1, "two"] },
        createdAt: at(n),
      });
      await run(recon((r) => Effect.forEach([outcome(1, uid("rex", 1), "opened"), outcome(2, uid("rex", 2), "opened"), outcome(3, uid("rex", 1), "resolved")], (o) => r.appendOutcome(o))));
      t.same(await run(recon((r) => r.listOutcomes(uid("rex", 1)))), [outcome(1, uid("rex", 1), "opened"), outcome(3, uid("rex", 1), "resolved")]);
      t.same(await run(recon((r) => r.listOutcomes(uid("rex", 2)))), [outcome(2, uid("rex", 2), "opened")]);
      t.same(await run(recon((r) => r.listOutcomes(uid("rex", 9)))), []);
    },
  },
  {
    name: "reconciliation: open exceptions are grouped by merchant (null: operator items) and kind, with the oldest opening",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      await run(
        insertAll([
          exceptionRecord(1, a.id),
          exceptionRecord(2, a.id),
          exceptionRecord(3, a.id, { kind: "missing" }),
          exceptionRecord(4, null, { kind: "missing", subjectType: "unknown", subjectId: null }),
          exceptionRecord(5, a.id),
        ]),
      );
      await run(recon((r) => r.markResolved({ id: uid("rex", 1), resolvedAt: at(10), resolution: {} })));
      const summary = await run(recon((r) => r.openExceptionSummary()));
      const key = (g: { merchantId: string | null; kind: string }) => `${g.merchantId ?? "-"}/${g.kind}`;
      t.same(
        [...summary].sort((x, y) => key(x).localeCompare(key(y))).map((g) => ({ ...g, oldestOpenedAt: g.oldestOpenedAt.getTime() })),
        [
          { merchantId: null, kind: "missing", count: 1, oldestOpenedAt: at(4).getTime() },
          { merchantId: a.id, kind: "amount", count: 2, oldestOpenedAt: at(2).getTime() },
          { merchantId: a.id, kind: "missing", count: 1, oldestOpenedAt: at(3).getTime() },
        ].sort((x, y) => key(x).localeCompare(key(y))),
        "a resolved exception is not counted",
      );
    },
  },
  {
    name: "reconciliation: an exception report is recorded once per merchant key and day",
    run: async (t, run) => {
      const report = { merchantKey: uid("mer", 1), reportDay: "2030-01-01", openCount: 2, summary: { amount: 2 }, createdAt: T0 };
      t.equal(await run(recon((r) => r.recordExceptionReport(report))), true);
      t.equal(await run(recon((r) => r.recordExceptionReport({ ...report, openCount: 5 }))), false, "that report exists");
      t.equal(await run(recon((r) => r.recordExceptionReport({ ...report, reportDay: "2030-01-02" }))), true, "another day");
      t.equal(await run(recon((r) => r.recordExceptionReport({ ...report, merchantKey: "operator" }))), true, "another merchant key");
    },
  },
  {
    name: "reconciliation: a posted ledger transaction is found by its source, with the source of its reversal",
    run: async (t, run) => {
      const m = await run(seedMerchant(1));
      const entries = [
        { account: `merchant:${m.id}:provider_receivable`, amount_minor: 500, currency: "USD" },
        { account: `merchant:${m.id}:balance`, amount_minor: -500, currency: "USD" },
      ];
      const reversal = { source: "charge:1:reversal", reverses: "charge:1", entries: entries.map((e) => ({ ...e, amount_minor: -e.amount_minor })) };
      await run(
        Effect.flatMap(PaymentsRepository, (r) =>
          Effect.zipRight(
            r.postLedger({ id: uid("ltx", 1), entryIds: [uid("ent", 1), uid("ent", 2)], merchantId: m.id, transaction: { source: "charge:1", entries }, createdAt: at(1) }),
            r.postLedger({ id: uid("ltx", 2), entryIds: [uid("ent", 3), uid("ent", 4)], merchantId: m.id, transaction: reversal, createdAt: at(2) }),
          ),
        ).pipe(Effect.orDie),
      );
      t.same(await run(recon((r) => r.findLedgerTransaction("charge:1"))), { merchantId: m.id, transaction: { source: "charge:1", entries }, reversedBy: "charge:1:reversal" });
      t.same(await run(recon((r) => r.findLedgerTransaction("charge:1:reversal"))), { merchantId: m.id, transaction: reversal, reversedBy: null });
      t.equal(await run(recon((r) => r.findLedgerTransaction("charge:9"))), null);
    },
  },
];

/** Runs the reconciliation repository kit. */
export const reconciliationRepositorySuite = (options: SuiteOptions<ReconciliationRepositoryKitPorts>): Promise<unknown> =>
  runCases(options, reconciliationRepositoryCases);
