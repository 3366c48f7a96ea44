/**
 * The ReconciliationRepository port over `payment_reconciliation_exceptions` and
 * `payment_reconciliation_outcomes`, plus the settlement reads over intents, attempts, refunds
 * and ledger transactions. Opening is one INSERT ... ON CONFLICT DO NOTHING on the UNIQUE
 * (provider_object, settlement_window) (migration 15): the database elects the single opener.
 */
import { sql } from "kysely";
import { Effect } from "effect";
import { ExceptionReport } from "../../../core/payments/model/ExceptionReport.js";
import type { LedgerTransaction } from "../../../core/kernel/Ledger.js";
import {
  ReconciliationException,
  ReconciliationOutcome,
  type SettledObject,
} from "../../../core/payments/model/ReconciliationException.js";
import type { ReconciliationRepository } from "../../../ports/payments/ReconciliationRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { lockRow } from "../lockRow.js";
import { MerchantId } from "../../../core/payments/model/Ids.js";
import { withSpan } from "../../../core/kernel/Span.js";

type Row = Record<string, unknown>;
const nullableMerchant = (v: unknown): MerchantId | null => (v === null || v === undefined ? null : MerchantId.make(String(v)));

// Our status in the provider's vocabulary: a captured intent is "captured", a held one "authorized".
const paymentStatus = (intentStatus: string): string =>
  intentStatus === "succeeded" ? "captured" : intentStatus === "requires_capture" ? "authorized" : intentStatus;

/** Builds the reconciliation repository over `db`. */
export const makeSqlReconciliationRepository = (db: SqlDatabase): ReconciliationRepository => {
  const f = featuresFor(db);
  const exceptions = rowCodec(ReconciliationException, f);
  const outcomes = rowCodec(ReconciliationOutcome, f);
  const reports = rowCodec(ExceptionReport, f);
  // The record inserts (an exception's election, a day's report, an outcome), compiled once.
  const insertExceptionIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_reconciliation_exceptions")
      .values(slotsOf(exceptions.columns, p))
      // No conflict target: every unique rule of the table is an arbiter. Migration 2's
      // (provider_object, settlement_window, kind) constraint is implied by migration 15's index,
      // but with a target naming only the latter, two openings racing past its check met the former
      // as an error on Postgres instead of as "already open".
      .onConflict((oc) => oc.doNothing())
      .returning("id"),
  );
  const insertReportIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_exception_reports")
      .values(slotsOf(reports.columns, p))
      .onConflict((oc) => oc.columns(["merchant_key", "report_day"]).doNothing())
      .returning("merchant_key"),
  );
  const insertOutcome = compiledInsert("payment_reconciliation_outcomes", outcomes);
  const paymentsQuery = (ex: Parameters<Parameters<typeof runQuery>[1]>[0]) =>
    ex
      .selectFrom("payment_attempts as a")
      .innerJoin("payment_intents as i", (join) => join.onRef("i.id", "=", "a.intent_id").onRef("i.attempt_count", "=", "a.number"))
      .select(["a.reference", "i.id", "i.merchant_id", "i.amount_captured_minor", "i.currency", "i.status"]);
  const paymentObject = (r: Row): SettledObject => ({
    type: "payment",
    reference: String(r.reference),
    merchantId: MerchantId.make(String(r.merchant_id)),
    subjectId: String(r.id),
    amountMinor: toNumber(r.amount_captured_minor),
    currency: String(r.currency),
    status: paymentStatus(String(r.status)),
  });
  const refundObject = (r: Row): SettledObject => ({
    type: "refund",
    reference: String(r.reference),
    merchantId: MerchantId.make(String(r.merchant_id)),
    subjectId: String(r.id),
    amountMinor: toNumber(r.amount_minor),
    currency: String(r.currency),
    status: String(r.status),
  });
  return {
    insertException: (e) =>
      runStatement(db, insertExceptionIfNew, exceptions.toRow({ ...e, resolution: null, resolvedAt: null })).pipe(
        Effect.map(({ rows }) => rows.length > 0),
        withSpan("ReconciliationRepository.insertException"),
      ),
    openExceptionSummary: () =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_reconciliation_exceptions")
          .select(["merchant_id", "kind"])
          .select((eb) => [eb.fn.countAll().as("count"), eb.fn.min("opened_at").as("oldest")])
          // A literal: payment_reconciliation_exceptions_open (payments migration 10) is partial on it.
          .where("status", "=", sql.lit("open"))
          .groupBy(["merchant_id", "kind"])
          .orderBy("merchant_id")
          .orderBy("kind")
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((r: Row) => ({ merchantId: nullableMerchant(r.merchant_id), kind: String(r.kind), count: toNumber(r.count), oldestOpenedAt: f.timeFromDb(r.oldest) })),
        ),
        withSpan("ReconciliationRepository.openExceptionSummary"),
      ),
    recordExceptionReport: (report) =>
      runStatement(db, insertReportIfNew, reports.toRow(report)).pipe(
        Effect.map(({ rows }) => rows.length > 0),
        withSpan("ReconciliationRepository.recordExceptionReport"),
      ),
    findException: (id, options) =>
      runQuery(db, (ex) =>
        lockRow(db, ex.selectFrom("payment_reconciliation_exceptions").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : exceptions.fromRow(r)))),
    markResolved: ({ id, resolvedAt, resolution }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_reconciliation_exceptions")
          .set({ status: "resolved", resolved_at: f.timeToDb(resolvedAt), resolution: f.jsonToDb(resolution) })
          .where("id", "=", id)
          .where("status", "=", "open")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
    listExceptions: ({ merchantId, status, before, limit }) =>
      runQuery(db, (ex) => {
        let query = ex
          .selectFrom("payment_reconciliation_exceptions")
          .selectAll()
          .where("merchant_id", merchantId === null ? "is" : "=", merchantId);
        if (status !== undefined) query = query.where("status", "=", status);
        if (before !== undefined) query = query.where("id", "<", before);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => exceptions.fromRow(r)))),
    listAllExceptions: ({ status, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("payment_reconciliation_exceptions").selectAll();
        if (status !== undefined) query = query.where("status", "=", status);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => exceptions.fromRow(r)))),
    appendOutcome: (o) =>
      runStatement(db, insertOutcome, o).pipe(Effect.asVoid),
    listOutcomes: (exceptionId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("payment_reconciliation_outcomes").selectAll().where("exception_id", "=", exceptionId).orderBy("id").execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((r) => outcomes.fromRow(r)),
        ),
      ),
    settledInWindow: ({ from, to }) =>
      Effect.gen(function* () {
        // The window's ledger transactions drive both reads (payments migration 11 indexes them by
        // time), and each finds its intent or refund by primary key: the id is the source with its
        // prefix and suffix taken off (`replace`, which cannot fail on another source's text), and
        // the source is still compared whole. Joined the other way round, every capture and
        // refund ever made was read on every run.
        const payments = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_ledger_transactions as t")
            .innerJoin("payment_intents as i", (join) =>
              join
                .on("i.id", "=", sql<string>`replace(replace(t.source, 'payment_intent:', ''), ':capture', '')`)
                .on(sql`t.source`, "=", sql`'payment_intent:' || i.id || ':capture'`),
            )
            .innerJoin("payment_attempts as a", (join) => join.onRef("a.intent_id", "=", "i.id").onRef("a.number", "=", "i.attempt_count"))
            .select(["a.reference", "i.id", "i.merchant_id", "i.amount_captured_minor", "i.currency", "i.status"])
            .where("t.created_at", ">=", f.timeToDb(from))
            .where("t.created_at", "<", f.timeToDb(to))
            .execute(),
        );
        const refunds = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_ledger_transactions as t")
            .innerJoin("payment_refunds as r", (join) =>
              join.on("r.id", "=", sql<string>`replace(t.source, 'refund:', '')`).on(sql`t.source`, "=", sql`'refund:' || r.id`),
            )
            .select(["r.id", "r.reference", "r.merchant_id", "r.amount_minor", "r.currency", "r.status"])
            .where("t.created_at", ">=", f.timeToDb(from))
            .where("t.created_at", "<", f.timeToDb(to))
            .execute(),
        );
        return [...payments.map(paymentObject), ...refunds.map(refundObject)];
      }),
    settledByReference: (reference) =>
      Effect.gen(function* () {
        const payment = yield* runQuery(db, (ex) => paymentsQuery(ex).where("a.reference", "=", reference).executeTakeFirst());
        if (payment !== undefined) return paymentObject(payment);
        const refund = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_refunds")
            .select(["id", "reference", "merchant_id", "amount_minor", "currency", "status"])
            .where("reference", "=", reference)
            .executeTakeFirst(),
        );
        return refund === undefined ? null : refundObject(refund);
      }),
    findLedgerTransaction: (source, options) =>
      Effect.gen(function* () {
        // Locked first when asked: the reversal is read by a later statement, after any wait.
        const tx = yield* runQuery(db, (ex) =>
          lockRow(db, ex.selectFrom("payment_ledger_transactions").selectAll().where("source", "=", source), options?.forUpdate === true).executeTakeFirst(),
        );
        if (tx === undefined) return null;
        const entries = yield* runQuery(db, (ex) =>
          ex.selectFrom("payment_ledger_entries").select(["account", "amount_minor", "currency"]).where("transaction_id", "=", tx.id).orderBy("id").execute(),
        );
        const reversal = yield* runQuery(db, (ex) =>
          ex.selectFrom("payment_ledger_transactions").select("source").where("reverses", "=", source).executeTakeFirst(),
        );
        const transaction: LedgerTransaction = {
          source: String(tx.source),
          entries: entries.map((e) => ({ account: String(e.account), amount_minor: toNumber(e.amount_minor), currency: String(e.currency) })),
          ...(tx.reverses === null || tx.reverses === undefined ? {} : { reverses: String(tx.reverses) }),
        };
        return { merchantId: MerchantId.make(String(tx.merchant_id)), transaction, reversedBy: reversal === undefined ? null : String(reversal.source) };
      }),
  };
};
