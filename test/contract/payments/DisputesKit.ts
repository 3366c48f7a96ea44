/**
 * Contract kit for Disputes: a provider payment id leads to its merchant and intent; `apply`
 * inserts a new dispute and advances a stored one only with a strictly newer event while it is
 * not closed (won, lost), answering whether it wrote; a merchant's disputes are listed newest
 * first, before `before`, its own only.
 */
import { Effect } from "effect";
import type { Dispute } from "../../../core/payments/model/Dispute.js";
import type { PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import { Disputes } from "../../../ports/payments/Disputes.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedIntent, uid } from "./fixtures.js";
import { DisputeId } from "../../../core/payments/model/Ids.js";

/** The ports this kit needs (intents are written through the PaymentsRepository). */
export type DisputesKitPorts = Disputes | PaymentsRepository;

const disputes = <A>(f: (r: Disputes) => Effect.Effect<A>) => Effect.flatMap(Disputes, f);

/** Dispute `n` (provider id `dp_<n>`) of `intent`, last event at provider time `eventMs`. */
export const disputeRecord = (intent: PaymentIntent, n: number, eventMs: number, overrides: Partial<Dispute> = {}): Dispute => ({
  id: DisputeId.make(uid("dsp", n)),
  providerDisputeId: `dp_${n}`,
  merchantId: intent.merchantId,
  paymentIntentId: intent.id,
  amountMinor: 1000,
  currency: "USD",
  reason: "fraudulent",
  status: "needs_response",
  lastEventMs: eventMs,
  lastEventId: `evt_${n}_${eventMs}`,
  createdAt: at(n),
  updatedAt: at(eventMs),
  ...overrides,
});

/** The cases of the disputes kit. */
export const disputesCases: ReadonlyArray<KitCase<DisputesKitPorts>> = [
  {
    name: "disputes: a provider payment id leads to its merchant and intent; an unknown one to nothing",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, { providerPaymentId: "pp_1" }));
      await run(seedIntent(2, 2, { providerPaymentId: "pp_2" }));
      t.same(await run(disputes((r) => r.intentOfProviderPayment("pp_1"))), { merchantId: intent.merchantId, intentId: intent.id });
      t.same(await run(disputes((r) => r.intentOfProviderPayment("pp_2"))), { merchantId: uid("mer", 2), intentId: uid("pi", 2) });
      t.equal(await run(disputes((r) => r.intentOfProviderPayment("pp_9"))), null);
    },
  },
  {
    name: "disputes: apply inserts, then advances only with a strictly newer event",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, { providerPaymentId: "pp_1" }));
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 1, 100)))), true, "a new dispute");
      t.same(await run(disputes((r) => r.findByProviderId("dp_1"))), disputeRecord(intent, 1, 100));
      const review = disputeRecord(intent, 1, 200, { status: "under_review", amountMinor: 900 });
      t.equal(await run(disputes((r) => r.apply(review))), true, "a newer event");
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 1, 150, { status: "lost" })))), false, "an older event");
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 1, 200, { status: "lost" })))), false, "an event as new");
      const stored = await run(disputes((r) => r.findByProviderId("dp_1")));
      t.equal(stored?.status, "under_review", "the newest applied event stands");
      t.equal(stored?.amountMinor, 900);
      t.equal(stored?.lastEventMs, 200);
      t.equal(stored?.id, uid("dsp", 1), "the same dispute");
      t.equal(await run(disputes((r) => r.findByProviderId("dp_9"))), null);
    },
  },
  {
    name: "disputes: a closed (won or lost) dispute is never advanced",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, { providerPaymentId: "pp_1" }));
      await run(disputes((r) => r.apply(disputeRecord(intent, 1, 100))));
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 1, 200, { status: "won" })))), true);
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 1, 300, { status: "under_review" })))), false, "closed");
      t.equal((await run(disputes((r) => r.findByProviderId("dp_1"))))?.status, "won");
      await run(disputes((r) => r.apply(disputeRecord(intent, 2, 100, { status: "lost" }))));
      t.equal(await run(disputes((r) => r.apply(disputeRecord(intent, 2, 300, { status: "won" })))), false, "lost is closed too");
      t.equal((await run(disputes((r) => r.findByProviderId("dp_2"))))?.status, "lost");
    },
  },
  {
    name: "disputes: a merchant's disputes are listed newest first, before `before`, its own only",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1, { providerPaymentId: "pp_1" }));
      const b = await run(seedIntent(2, 2, { providerPaymentId: "pp_2" }));
      await run(disputes((r) => Effect.forEach([disputeRecord(a, 1, 1), disputeRecord(b, 2, 1), disputeRecord(a, 3, 1), disputeRecord(a, 4, 1)], (d) => r.apply(d))));
      const ids = (rows: ReadonlyArray<Dispute>) => rows.map((d) => d.id);
      t.same(ids(await run(disputes((r) => r.list({ merchantId: a.merchantId, limit: 10 })))), [uid("dsp", 4), uid("dsp", 3), uid("dsp", 1)]);
      t.same(ids(await run(disputes((r) => r.list({ merchantId: a.merchantId, before: uid("dsp", 4), limit: 1 })))), [uid("dsp", 3)]);
      t.same(ids(await run(disputes((r) => r.list({ merchantId: b.merchantId, limit: 10 })))), [uid("dsp", 2)]);
      t.same(await run(disputes((r) => r.list({ merchantId: uid("mer", 9), limit: 10 }))), []);
    },
  },
];

/** Runs the disputes kit. */
export const disputesSuite = (options: SuiteOptions<DisputesKitPorts>): Promise<unknown> => runCases(options, disputesCases);
