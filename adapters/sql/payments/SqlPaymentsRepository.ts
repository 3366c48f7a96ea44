/** The PaymentsRepository port over the payment tables (see paymentsMigrations.ts). */
import { Effect } from "effect";
import { sql } from "kysely";
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
import { compiledInsert, compiledOnce, compiledUpdateIfVersion, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
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
  // The statements of every payment command (creation, confirmation, provider events, refunds,
  // captures' postings, audit), compiled once; a locked read has a FOR UPDATE variant beside it.
  const insertMerchant = compiledInsert("payment_merchants", merchants);
  const selectMerchant = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("payment_merchants").selectAll().where("id", "=", p("id")));
  const insertIntent = compiledInsert("payment_intents", intents);
  const selectIntentBy = (forUpdate: boolean) =>
    compiledOnce<{ id: string }>((ex, p) => lockRow(db, ex.selectFrom("payment_intents").selectAll().where("id", "=", p("id")), forUpdate));
  const selectIntent = selectIntentBy(false);
  const selectIntentForUpdate = selectIntentBy(true);
  const updateIntentIfVersion = compiledUpdateIfVersion("payment_intents", intents, { key: ["id"], unchanging: ["merchant_id", "created_at"] });
  const insertAttempt = compiledInsert("payment_attempts", attempts);
  const selectAttempt = compiledOnce<{ intentId: string; number: number }>((ex, p) =>
    ex.selectFrom("payment_attempts").selectAll().where("intent_id", "=", p("intentId")).where("number", "=", p("number")),
  );
  // The status is a literal: the predicate of the partial index payment_attempts_pending.
  const selectPendingAttemptsBefore = compiledOnce<{ before: unknown; limit: number }>((ex, p) =>
    ex
      .selectFrom("payment_attempts")
      .selectAll()
      .where("status", "=", sql.lit("pending"))
      .where("created_at", "<", p("before"))
      .orderBy("created_at")
      .limit(p("limit")),
  );
  // An intent has few attempts (declines are bounded per hour, ConfirmRisk.ts): its (intent_id, number) key finds them.
  const selectDeclinesSince = compiledOnce<{ intentId: string; since: unknown; limit: number }>((ex, p) =>
    ex
      .selectFrom("payment_attempts")
      .select("updated_at")
      .where("intent_id", "=", p("intentId"))
      .where("status", "=", sql.lit("declined"))
      .where("updated_at", ">=", p("since"))
      .orderBy("updated_at")
      .limit(p("limit")),
  );
  const updateAttempt = compiledOnce<{ id: string; status: string; providerPaymentId: unknown; declineCode: unknown; updatedAt: unknown }>((ex, p) =>
    ex
      .updateTable("payment_attempts")
      .set({
        status: p("status"),
        provider_payment_id: p("providerPaymentId"),
        decline_code: p("declineCode"),
        updated_at: p("updatedAt"),
      })
      .where("id", "=", p("id")),
  );
  const insertRefund = compiledInsert("payment_refunds", refunds);
  const selectRefundBy = (forUpdate: boolean) =>
    compiledOnce<{ id: string }>((ex, p) => lockRow(db, ex.selectFrom("payment_refunds").selectAll().where("id", "=", p("id")), forUpdate));
  const selectRefund = selectRefundBy(false);
  const selectRefundForUpdate = selectRefundBy(true);
  const selectRefundByRequestKey = compiledOnce<{ merchantId: string; requestKey: string }>((ex, p) =>
    ex.selectFrom("payment_refunds").selectAll().where("merchant_id", "=", p("merchantId")).where("request_key", "=", p("requestKey")),
  );
  const updateRefund = compiledOnce<{ id: string; status: string; failureReason: unknown; updatedAt: unknown }>((ex, p) =>
    ex
      .updateTable("payment_refunds")
      .set({ status: p("status"), failure_reason: p("failureReason"), updated_at: p("updatedAt") })
      .where("id", "=", p("id")),
  );
  const sumCommittedRefunds = compiledOnce<{ intentId: string }>((ex, p) =>
    ex
      .selectFrom("payment_refunds")
      .select((eb) => eb.fn.coalesce(eb.fn.sum("amount_minor"), eb.lit(0)).as("total"))
      .where("intent_id", "=", p("intentId"))
      .where("status", "in", ["pending", "succeeded"]),
  );
  const insertLedgerTransaction = compiledOnce<{ id: string; source: string; merchantId: string; reverses: string | null; createdAt: unknown }>(
    (ex, p) =>
      ex
        .insertInto("payment_ledger_transactions")
        .values({
          id: p("id"),
          source: p("source"),
          merchant_id: p("merchantId"),
          reverses: p("reverses"),
          created_at: p("createdAt"),
        })
        .onConflict((oc) => oc.column("source").doNothing())
        .returning("id"),
  );
  // A ledger entry's columns, for the row at `index` of a multi-row insert.
  const ledgerEntry = (index: number, p: (key: string) => unknown) => ({
    id: p(`id${index}`),
    transaction_id: p("transactionId"),
    merchant_id: p("merchantId"),
    account: p(`account${index}`),
    amount_minor: p(`amountMinor${index}`),
    currency: p(`currency${index}`),
    created_at: p("createdAt"),
  });
  // Every capture and refund posting has two entries: that insert is compiled once; other counts are built per call.
  const insertTwoLedgerEntries = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex.insertInto("payment_ledger_entries").values([ledgerEntry(0, p), ledgerEntry(1, p)]),
  );
  const insertAudit = compiledInsert("payment_audit_log", audits);
  return {
    insertMerchant: (m) =>
      runStatement(db, insertMerchant, m).pipe(Effect.asVoid, withSpan("PaymentsRepository.insertMerchant")),
    findMerchant: (id) =>
      runStatement(db, selectMerchant, { id }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : merchants.fromRow(r))),
      ),
    // A new intent under its fresh id: nobody reads the answer (unanswered on Postgres).
    insertIntent: (intent) => sendStatement(db, insertIntent, intent).pipe(withSpan("PaymentsRepository.insertIntent")),
    findIntent: (id, options) =>
      runQuery(db, (ex) => (options?.forUpdate === true ? selectIntentForUpdate : selectIntent)(ex, { id })).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : intents.fromRow(r))),
        withSpan("PaymentsRepository.findIntent"),
      ),
    updateIntent: (intent, expectedVersion) =>
      runStatement(db, updateIntentIfVersion, { record: intent, expectedVersion }).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0) === 1),
        withSpan("PaymentsRepository.updateIntent"),
      ),
    // Nobody reads these answers and no caller maps their failure (a defect either way): on
    // Postgres they go out with the transaction's next statement (runQuery.ts, sendStatement).
    insertAttempt: (attempt) => sendStatement(db, insertAttempt, attempt),
    findAttempt: (intentId, number) =>
      runStatement(db, selectAttempt, { intentId, number }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : attempts.fromRow(r))),
      ),
    pendingAttemptsBefore: (before, limit) =>
      runStatement(db, selectPendingAttemptsBefore, { before: f.timeToDb(before), limit }).pipe(
        Effect.map(({ rows }) => rows.map((r) => attempts.fromRow(r))),
      ),
    declinesSince: (intentId, since, limit) =>
      runStatement(db, selectDeclinesSince, { intentId, since: f.timeToDb(since), limit }).pipe(
        Effect.map(({ rows }) => rows.map((r) => f.timeFromDb(r.updated_at))),
      ),
    updateAttempt: (attempt) =>
      sendStatement(db, updateAttempt, {
        id: attempt.id,
        status: attempt.status,
        providerPaymentId: attempt.providerPaymentId,
        declineCode: attempt.declineCode,
        updatedAt: f.timeToDb(attempt.updatedAt),
      }),
    insertRefund: (refund) => sendStatement(db, insertRefund, refund),
    findRefund: (id, options) =>
      runQuery(db, (ex) => (options?.forUpdate === true ? selectRefundForUpdate : selectRefund)(ex, { id })).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : refunds.fromRow(r))),
      ),
    findRefundByRequestKey: (merchantId, requestKey) =>
      runStatement(db, selectRefundByRequestKey, { merchantId, requestKey }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : refunds.fromRow(r))),
      ),
    updateRefund: (refund) =>
      sendStatement(db, updateRefund, { id: refund.id, status: refund.status, failureReason: refund.failureReason, updatedAt: f.timeToDb(refund.updatedAt) }),
    committedRefundsMinor: (intentId) =>
      runStatement(db, sumCommittedRefunds, { intentId }).pipe(Effect.map(({ rows: [r] }) => toNumber(r.total))),
    postLedger: ({ id, entryIds, merchantId, transaction, createdAt }) =>
      Effect.gen(function* () {
        // Checked before anything is written, so a refused posting leaves no row behind.
        if (entryIds.length !== transaction.entries.length) {
          return yield* Effect.dieMessage(`ledger posting ${id}: ${entryIds.length} entry ids for ${transaction.entries.length} entries`);
        }
        // ON CONFLICT DO NOTHING keeps a Postgres transaction usable after a duplicate source.
        const at = f.timeToDb(createdAt);
        const { rows: inserted } = yield* runStatement(db, insertLedgerTransaction, { id, source: transaction.source, merchantId, reverses: transaction.reverses ?? null, createdAt: at });
        if (inserted.length === 0) {
          return yield* Effect.fail(new DuplicateLedgerSource({ source: transaction.source, detail: `source ${transaction.source} was already posted` }));
        }
        const entries = transaction.entries;
        if (entries.length === 2) {
          const params: Record<string, unknown> = { transactionId: id, merchantId, createdAt: at };
          entries.forEach((entry, index) => {
            params[`id${index}`] = entryIds[index] ?? "";
            params[`account${index}`] = entry.account;
            params[`amountMinor${index}`] = entry.amount_minor;
            params[`currency${index}`] = entry.currency;
          });
          // Nobody reads this answer (the kernel checked the balance; Postgres checks it again at COMMIT).
          return yield* sendStatement(db, insertTwoLedgerEntries, params);
        }
        yield* runQuery<unknown>(db, (ex) =>
          ex
            .insertInto("payment_ledger_entries")
            .values(
              entries.map((entry, index) => ({
                id: entryIds[index] ?? "",
                transaction_id: id,
                merchant_id: merchantId,
                account: entry.account,
                amount_minor: entry.amount_minor,
                currency: entry.currency,
                created_at: at,
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
      sendStatement(db, insertAudit, record),
  };
};
