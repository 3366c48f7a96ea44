/**
 * Contract kit for the PaymentsRepository: records read back as written; `updateIntent` is
 * conditional on the stored version (false, and nothing written, once it moved); an intent's
 * attempts are unique per number; `committedRefundsMinor` sums the pending and succeeded refunds
 * of that intent only; a ledger posting's source is posted once (DuplicateLedgerSource, nothing
 * written the second time); a posting whose entry ids do not match its entries writes nothing;
 * the balanced entries are listed for its merchant only, newest
 * first, strictly before `before`.
 */
import { Effect, Exit } from "effect";
import type { LedgerTransaction } from "../../../core/kernel/Ledger.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { at, exitOf, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { attemptRecord, capturedOverrides, intentRecord, merchantRecord, refundRecord, seedIntent, seedMerchant, seedRefund, uid } from "./fixtures.js";
import { MerchantId } from "../../../core/payments/model/Ids.js";

/** The ports this kit needs. */
export type PaymentsRepositoryKitPorts = PaymentsRepository;

const repo = <A, E>(f: (r: PaymentsRepository) => Effect.Effect<A, E>) => Effect.flatMap(PaymentsRepository, f);

/** A balanced capture of `amount` of merchant `merchantId` for transaction source `source` (its own accounts, migration 29). */
const capture = (merchantId: string, source: string, amount: number): LedgerTransaction => ({
  source,
  entries: [
    { account: `merchant:${merchantId}:provider_receivable`, amount_minor: amount, currency: "USD" },
    { account: `merchant:${merchantId}:balance`, amount_minor: -amount, currency: "USD" },
  ],
});

/** Posts `tx` as ledger transaction `n` of merchant `merchantId` (entry ids `uid("ent", n * 10 + i)`). */
const post = (merchantId: string, n: number, tx: LedgerTransaction) =>
  repo((r) =>
    r.postLedger({ id: uid("ltx", n), entryIds: tx.entries.map((_, i) => uid("ent", n * 10 + i)), merchantId, transaction: tx, createdAt: at(n) }),
  );

/** The cases of the payments repository kit. */
export const paymentsRepositoryCases: ReadonlyArray<KitCase<PaymentsRepositoryKitPorts>> = [
  {
    name: "payments: merchants and intents read back as written; unknown ids find nothing",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, { paymentMethod: "pm_card_visa", lastDeclineCode: "card_declined", attemptCount: 2 }));
      t.same(await run(repo((r) => r.findMerchant(uid("mer", 1)))), merchantRecord(1));
      t.equal(await run(repo((r) => r.findMerchant(uid("mer", 9)))), null);
      t.same(await run(repo((r) => r.findIntent(intent.id))), intent);
      t.same(await run(repo((r) => r.findIntent(intent.id, { forUpdate: true }))), intent, "a locking read answers the same");
      t.equal(await run(repo((r) => r.findIntent(uid("pi", 9)))), null);
    },
  },
  {
    name: "payments: an intent belongs to its merchant: findIntent answers it with that merchant id, never another's",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const b = await run(seedIntent(2, 2));
      t.equal((await run(repo((r) => r.findIntent(a.id))))?.merchantId, uid("mer", 1));
      t.equal((await run(repo((r) => r.findIntent(b.id))))?.merchantId, uid("mer", 2), "the core's ownership check sees the owner");
    },
  },
  {
    name: "payments: updateIntent writes only while the stored version is the expected one",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1));
      const next = { ...intent, status: "processing" as const, paymentMethod: "pm_card_visa", version: 2, updatedAt: at(10) };
      t.equal(await run(repo((r) => r.updateIntent(next, 1))), true, "version 1 expected and stored");
      t.same(await run(repo((r) => r.findIntent(intent.id))), next);
      const stale = { ...intent, status: "canceled" as const, version: 2, updatedAt: at(20) };
      t.equal(await run(repo((r) => r.updateIntent(stale, 1))), false, "the version moved: refused");
      t.same(await run(repo((r) => r.findIntent(intent.id))), next, "nothing written by the refused update");
      t.equal(await run(repo((r) => r.updateIntent(intentRecord(MerchantId.make(uid("mer", 1)), 9, { version: 2 }), 1))), false, "an unknown intent: false");
    },
  },
  {
    name: "payments: an intent's attempts are unique per number and read back by (intent, number)",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const b = await run(seedIntent(1, 2));
      await run(repo((r) => r.insertAttempt(attemptRecord(a, 1, 1))));
      await run(repo((r) => r.insertAttempt(attemptRecord(b, 2, 1))));
      const exit = await run(exitOf(repo((r) => r.insertAttempt(attemptRecord(a, 3, 1, { reference: "other" })))));
      t.ok(Exit.isFailure(exit), "a second attempt 1 of the same intent is refused");
      t.same(await run(repo((r) => r.findAttempt(a.id, 1))), attemptRecord(a, 1, 1), "the first one stands");
      t.same(await run(repo((r) => r.findAttempt(b.id, 1))), attemptRecord(b, 2, 1), "number 1 of another intent is its own");
      t.equal(await run(repo((r) => r.findAttempt(a.id, 2))), null);
      const updated = attemptRecord(a, 1, 1, { status: "declined", declineCode: "card_declined", providerPaymentId: "pp_1", updatedAt: at(5) });
      await run(repo((r) => r.updateAttempt(updated)));
      t.same(await run(repo((r) => r.findAttempt(a.id, 1))), updated, "status, provider id and decline code updated");
    },
  },
  {
    name: "payments: pendingAttemptsBefore answers pending attempts started before the time, oldest first, at most the limit",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const b = await run(seedIntent(1, 2));
      const c = await run(seedIntent(2, 3));
      const attempts = [
        attemptRecord(a, 1, 1, { createdAt: at(3_000) }),
        attemptRecord(b, 2, 1, { createdAt: at(1_000) }),
        attemptRecord(c, 3, 1, { createdAt: at(2_000) }),
        attemptRecord(a, 4, 2, { createdAt: at(500), status: "captured" }),
        attemptRecord(b, 5, 2, { createdAt: at(9_000) }),
      ];
      await run(repo((r) => Effect.forEach(attempts, (attempt) => r.insertAttempt(attempt))));
      const ids = async (before: number, limit: number) => (await run(repo((r) => r.pendingAttemptsBefore(at(before), limit)))).map((x) => x.id);
      t.same(await ids(5_000, 10), [uid("att", 2), uid("att", 3), uid("att", 1)], "pending ones only, every merchant's, oldest first");
      t.same(await ids(5_000, 2), [uid("att", 2), uid("att", 3)], "at most the limit");
      t.same(await ids(1_000, 10), [], "strictly before");
      await run(repo((r) => r.updateAttempt({ ...attempts[1]!, status: "unknown", updatedAt: at(6_000) })));
      t.same(await ids(5_000, 10), [uid("att", 3), uid("att", 1)], "an attempt no longer pending leaves");
    },
  },
  {
    name: "payments: declinesSince answers when that intent's attempts were declined, at or after the time, oldest first, at most the limit",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const b = await run(seedIntent(1, 2));
      const attempts = [
        attemptRecord(a, 1, 1, { status: "declined", declineCode: "card_declined", updatedAt: at(3_000) }),
        attemptRecord(a, 2, 2, { status: "declined", declineCode: "card_declined", updatedAt: at(1_000) }),
        attemptRecord(a, 3, 3, { status: "declined", declineCode: "insufficient_funds", updatedAt: at(2_000) }),
        attemptRecord(a, 4, 4, { status: "captured", updatedAt: at(2_500) }),
        attemptRecord(b, 5, 1, { status: "declined", declineCode: "card_declined", updatedAt: at(2_200) }),
      ];
      await run(repo((r) => Effect.forEach(attempts, (attempt) => r.insertAttempt(attempt))));
      const times = async (since: number, limit: number) => (await run(repo((r) => r.declinesSince(a.id, at(since), limit)))).map((d) => d.getTime());
      t.same(await times(0, 10), [at(1_000), at(2_000), at(3_000)].map((d) => d.getTime()), "declined ones of that intent only, oldest first");
      t.same(await times(2_000, 10), [at(2_000), at(3_000)].map((d) => d.getTime()), "at or after the time");
      t.same(await times(0, 2), [at(1_000), at(2_000)].map((d) => d.getTime()), "at most the limit");
      t.same(await run(repo((r) => r.declinesSince(b.id, at(2_300), 10))), [], "another intent's: its own");
    },
  },
  {
    name: "payments: committedRefundsMinor sums that intent's pending and succeeded refunds, not failed ones",
    run: async (t, run) => {
      // Refunds are of captured intents (the database bounds them by the captured amount).
      const a = await run(seedIntent(1, 1, capturedOverrides));
      const b = await run(seedIntent(1, 2, capturedOverrides));
      t.equal(await run(repo((r) => r.committedRefundsMinor(a.id))), 0, "none yet");
      await run(
        Effect.forEach(
          [refundRecord(a, 1, 100), refundRecord(a, 2, 200, { status: "succeeded" }), refundRecord(a, 3, 400, { status: "failed", failureReason: "x" }), refundRecord(b, 4, 800)],
          (refund, i) => seedRefund(refund, i),
        ),
      );
      t.equal(await run(repo((r) => r.committedRefundsMinor(a.id))), 300);
      t.same(await run(repo((r) => r.findRefund(uid("re", 2)))), refundRecord(a, 2, 200, { status: "succeeded" }));
      t.same(await run(repo((r) => r.findRefund(uid("re", 2), { forUpdate: true }))), refundRecord(a, 2, 200, { status: "succeeded" }));
      await run(repo((r) => r.updateRefund(refundRecord(a, 1, 100, { status: "failed", failureReason: "provider_refused", updatedAt: at(9) }))));
      t.equal((await run(repo((r) => r.findRefund(uid("re", 1)))))?.failureReason, "provider_refused");
      t.equal(await run(repo((r) => r.committedRefundsMinor(a.id))), 200, "a refund that failed no longer counts");
      t.equal(await run(repo((r) => r.findRefund(uid("re", 9)))), null);
    },
  },
  {
    name: "payments: findRefundByRequestKey finds the merchant's refund under that key; a second refund under it is refused",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1, capturedOverrides));
      const other = await run(seedIntent(2, 2, capturedOverrides));
      const keyed = refundRecord(a, 1, 100, { requestKey: "key-1" });
      await run(repo((r) => Effect.zipRight(r.insertRefund(keyed), r.insertRefund(refundRecord(a, 2, 200)))));
      t.same(await run(repo((r) => r.findRefundByRequestKey(a.merchantId, "key-1"))), keyed);
      t.equal(await run(repo((r) => r.findRefundByRequestKey(other.merchantId, "key-1"))), null, "another merchant's key space is its own");
      t.equal(await run(repo((r) => r.findRefundByRequestKey(a.merchantId, "key-2"))), null);
      const exit = await run(exitOf(repo((r) => r.insertRefund(refundRecord(a, 3, 300, { requestKey: "key-1" })))));
      t.ok(Exit.isFailure(exit), "one refund per merchant and key");
      t.equal(await run(repo((r) => r.findRefund(uid("re", 3)))), null, "the second is not written");
      await run(repo((r) => r.insertRefund(refundRecord(other, 4, 400, { requestKey: "key-1" }))));
      t.equal((await run(repo((r) => r.findRefundByRequestKey(other.merchantId, "key-1"))))?.id, uid("re", 4), "the same key of another merchant is a refund of its own");
    },
  },
  {
    name: "payments: a ledger source is posted once; the second posting fails with DuplicateLedgerSource and writes nothing",
    run: async (t, run) => {
      const merchant = await run(seedMerchant(1));
      await run(post(merchant.id, 1, capture(merchant.id, "charge:1:capture", 500)));
      const exit = await run(exitOf(post(merchant.id, 2, capture(merchant.id, "charge:1:capture", 700))));
      t.ok(Exit.isFailure(exit));
      t.equal(Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error._tag : null, "DuplicateLedgerSource", "a typed failure");
      const entries = await run(repo((r) => r.listBalanceEntries({ merchantId: merchant.id, limit: 10 })));
      t.equal(entries.length, 2, "only the first posting's entries");
      t.same(entries.map((e) => e.transactionId), [uid("ltx", 1), uid("ltx", 1)]);
      t.equal(entries.reduce((sum, e) => sum + e.amountMinor, 0), 0, "the entries balance");
    },
  },
  {
    name: "payments: a posting with a wrong number of entry ids is refused (a defect) and writes nothing, outside a transaction too",
    run: async (t, run) => {
      const merchant = await run(seedMerchant(1));
      const tx = capture(merchant.id, "charge:1:capture", 500);
      for (const entryIds of [[uid("ent", 10)], [uid("ent", 10), uid("ent", 11), uid("ent", 12)]]) {
        const exit = await run(exitOf(repo((r) => r.postLedger({ id: uid("ltx", 1), entryIds, merchantId: merchant.id, transaction: tx, createdAt: at(1) }))));
        t.ok(Exit.isFailure(exit) && exit.cause._tag === "Die", `${entryIds.length} ids for 2 entries: a defect, not a typed failure`);
      }
      t.same(await run(repo((r) => r.listBalanceEntries({ merchantId: merchant.id, limit: 10 }))), [], "no entries");
      // Had a transaction row been left behind, its source would be taken and this would be a DuplicateLedgerSource.
      await run(post(merchant.id, 1, tx));
      const entries = await run(repo((r) => r.listBalanceEntries({ merchantId: merchant.id, limit: 10 })));
      t.same(entries.map((e) => e.transactionId), [uid("ltx", 1), uid("ltx", 1)], "the source is still free: the correct posting goes through");
    },
  },
  {
    name: "payments: a merchant's balance entries are listed newest first, its own only, strictly before `before`",
    run: async (t, run) => {
      const a = await run(seedMerchant(1));
      const b = await run(seedMerchant(2));
      await run(post(a.id, 1, capture(a.id, "charge:1", 100)));
      await run(post(b.id, 2, capture(b.id, "charge:2", 200)));
      await run(post(a.id, 3, capture(a.id, "charge:3", 300)));
      const all = await run(repo((r) => r.listBalanceEntries({ merchantId: a.id, limit: 10 })));
      t.same(all.map((e) => e.id), [uid("ent", 31), uid("ent", 30), uid("ent", 11), uid("ent", 10)]);
      t.same(all[1], { id: uid("ent", 30), transactionId: uid("ltx", 3), source: "charge:3", account: `merchant:${a.id}:provider_receivable`, amountMinor: 300, currency: "USD", createdAt: at(3) });
      t.same((await run(repo((r) => r.listBalanceEntries({ merchantId: a.id, limit: 2 })))).map((e) => e.id), [uid("ent", 31), uid("ent", 30)]);
      t.same((await run(repo((r) => r.listBalanceEntries({ merchantId: a.id, before: uid("ent", 30), limit: 10 })))).map((e) => e.id), [uid("ent", 11), uid("ent", 10)]);
      t.same((await run(repo((r) => r.listBalanceEntries({ merchantId: b.id, limit: 10 })))).map((e) => e.source), ["charge:2", "charge:2"], "another merchant's entries are its own");
      t.same(await run(repo((r) => r.listBalanceEntries({ merchantId: uid("mer", 9), limit: 10 }))), []);
    },
  },
];

/** Runs the payments repository kit. */
export const paymentsRepositorySuite = (options: SuiteOptions<PaymentsRepositoryKitPorts>): Promise<unknown> => runCases(options, paymentsRepositoryCases);
