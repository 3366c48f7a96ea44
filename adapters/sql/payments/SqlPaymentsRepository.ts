/** The PaymentsRepository port over the payment tables (see paymentsMigrations.ts). */
import { Effect } from "effect";
import { DuplicateLedgerSource } from "../../../core/kernel/Ledger.js";
import type { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { AuditRecord } from "../../../core/payments/model/AuditRecord.js";
import { BalanceEntry } from "../../../core/payments/model/BalanceEntry.js";
import { Merchant } from "../../../core/payments/model/Merchant.js";
import { PaymentAttempt } from "../../../core/payments/model/PaymentAttempt.js";
import { PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import { Refund } from "../../../core/payments/model/Refund.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { lockRow } from "../lockRow.js";
import { makeTransactions } from "../Transactions.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the payment repository over `db`. */
export const makeSqlPaymentsRepository = (db: SqlDatabase): PaymentsRepository => {
  const f = featuresFor(db);
  const merchants = rowCodec(Merchant, f);
  const intents = rowCodec(PaymentIntent, f);
  const attempts = rowCodec(PaymentAttempt, f);
  const refunds = rowCodec(Refund, f);
  const balanceEntries = rowCodec(BalanceEntry, f);
  const audits = rowCodec(AuditRecord, f);
  const ledgerTransactions = makeTransactions(db);
  return {
    insertMerchant: (m) =>
      runQuery(db, (ex) =>
        ex.insertInto("payment_merchants").values(merchants.toRow(m)).execute(),
      ).pipe(Effect.asVoid, withSpan("PaymentsRepository.insertMerchant")),
    findMerchant: (id) =>
      runQuery(db, (ex) => ex.selectFrom("payment_merchants").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : merchants.fromRow(r))),
      ),
    insertIntent: (intent) =>
      runQuery(db, (ex) => ex.insertInto("payment_intents").values(intents.toRow(intent)).execute()).pipe(
        Effect.asVoid,
        withSpan("PaymentsRepository.insertIntent"),
      ),
    findIntent: (id, options) =>
      runQuery(db, (ex) => lockRow(db, ex.selectFrom("payment_intents").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : intents.fromRow(r))),
        withSpan("PaymentsRepository.findIntent"),
      ),
    updateIntent: (intent, expectedVersion) =>
      runQuery(db, (ex) => {
        const { id: _id, merchant_id: _m, created_at: _c, ...changes } = intents.toRow(intent);
        return ex
          .updateTable("payment_intents")
          .set(changes)
          .where("id", "=", intent.id)
          .where("version", "=", expectedVersion)
          .executeTakeFirst();
      }).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows) === 1),
        withSpan("PaymentsRepository.updateIntent"),
      ),
    insertAttempt: (attempt) =>
      runQuery(db, (ex) => ex.insertInto("payment_attempts").values(attempts.toRow(attempt)).execute()).pipe(Effect.asVoid),
    findAttempt: (intentId, number) =>
      runQuery(db, (ex) =>
        ex.selectFrom("payment_attempts").selectAll().where("intent_id", "=", intentId).where("number", "=", number).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : attempts.fromRow(r)))),
    updateAttempt: (attempt) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_attempts")
          .set({
            status: attempt.status,
            provider_payment_id: attempt.providerPaymentId,
            decline_code: attempt.declineCode,
            updated_at: f.timeToDb(attempt.updatedAt),
          })
          .where("id", "=", attempt.id)
          .execute(),
      ).pipe(Effect.asVoid),
    insertRefund: (refund) =>
      runQuery(db, (ex) => ex.insertInto("payment_refunds").values(refunds.toRow(refund)).execute()).pipe(Effect.asVoid),
    findRefund: (id, options) =>
      runQuery(db, (ex) => lockRow(db, ex.selectFrom("payment_refunds").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : refunds.fromRow(r))),
      ),
    updateRefund: (refund) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_refunds")
          .set({ status: refund.status, failure_reason: refund.failureReason, updated_at: f.timeToDb(refund.updatedAt) })
          .where("id", "=", refund.id)
          .execute(),
      ).pipe(Effect.asVoid),
    committedRefundsMinor: (intentId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_refunds")
          .select((eb) => eb.fn.coalesce(eb.fn.sum("amount_minor"), eb.lit(0)).as("total"))
          .where("intent_id", "=", intentId)
          .where("status", "in", ["pending", "succeeded"])
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.total))),
    postLedger: ({ id, entryIds, merchantId, transaction, createdAt }) =>
      Effect.gen(function* () {
        // Checked before anything is written, so a refused posting leaves no row behind.
        if (entryIds.length !== transaction.entries.length) {
          return yield* Effect.dieMessage(`ledger posting ${id}: ${entryIds.length} entry ids for ${transaction.entries.length} entries`);
        }
        // ON CONFLICT DO NOTHING keeps a Postgres transaction usable after a duplicate source.
        const inserted = yield* runQuery(db, (ex) =>
          ex
            .insertInto("payment_ledger_transactions")
            .values({
              id,
              source: transaction.source,
              merchant_id: merchantId,
              reverses: transaction.reverses ?? null,
              created_at: f.timeToDb(createdAt),
            })
            .onConflict((oc) => oc.column("source").doNothing())
            .returning("id")
            .executeTakeFirst(),
        );
        if (inserted === undefined) {
          return yield* Effect.fail(new DuplicateLedgerSource({ source: transaction.source, detail: `source ${transaction.source} was already posted` }));
        }
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("payment_ledger_entries")
            .values(
              transaction.entries.map((entry, index) => ({
                id: entryIds[index] ?? "",
                transaction_id: id,
                merchant_id: merchantId,
                account: entry.account,
                amount_minor: entry.amount_minor,
                currency: entry.currency,
                created_at: f.timeToDb(createdAt),
              })),
            )
            .execute(),
        );
        // The header and its entries commit together: inside the caller's transaction (joined), else in one of their own.
      }).pipe(ledgerTransactions.run, withSpan("PaymentsRepository.postLedger")),
    listBalanceEntries: ({ merchantId, before, limit }) =>
      runQuery(db, (ex) => {
        let query = ex
          .selectFrom("payment_ledger_entries as e")
          .innerJoin("payment_ledger_transactions as t", "t.id", "e.transaction_id")
          .select(["e.id", "e.transaction_id", "t.source", "e.account", "e.amount_minor", "e.currency", "e.created_at"])
          .where("e.merchant_id", "=", merchantId);
        if (before !== undefined) query = query.where("e.id", "<", before);
        return query.orderBy("e.id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => balanceEntries.fromRow(r)))),
    appendAudit: (record) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_audit_log")
          .values(audits.toRow(record))
          .execute(),
      ).pipe(Effect.asVoid),
  };
};
