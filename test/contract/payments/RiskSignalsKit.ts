/**
 * Contract kit for RiskSignals: the signals of one intent count its attempts (all, declined,
 * unknown), its disputes (all, lost) and its refunds, and list its distinct decline codes in
 * code order; another intent's history never counts; an intent with no history reads zero.
 */
import { Effect } from "effect";
import { Disputes } from "../../../ports/payments/Disputes.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { RiskSignals, type IntentRiskSignals } from "../../../ports/payments/RiskSignals.js";
import { runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { disputeRecord } from "./DisputesKit.js";
import { attemptRecord, refundRecord, seedIntent } from "./fixtures.js";

/** The ports this kit needs (the history is written through the ports that own it). */
export type RiskSignalsKitPorts = RiskSignals | PaymentsRepository | Disputes;

const signalsOf = (intentId: string) => Effect.flatMap(RiskSignals, (s) => s.ofIntent(intentId));
const none: IntentRiskSignals = { attempts: 0, declinedAttempts: 0, unknownOutcomes: 0, declineCodes: [], disputes: 0, lostDisputes: 0, refunds: 0 };

/** The cases of the risk signals kit. */
export const riskSignalsCases: ReadonlyArray<KitCase<RiskSignalsKitPorts>> = [
  {
    name: "risk signals: an intent's attempts, disputes and refunds are counted, its decline codes listed once in order, nobody else's",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, { status: "succeeded", amountCapturedMinor: 1000, attemptCount: 5 }));
      const other = await run(seedIntent(1, 2, { attemptCount: 1 }));
      t.same(await run(signalsOf(intent.id)), none, "no history: all zero");
      const statuses = [
        { status: "declined", declineCode: "insufficient_funds" },
        { status: "declined", declineCode: "card_declined" },
        { status: "declined", declineCode: "card_declined" },
        { status: "unknown" },
        { status: "captured" },
      ] as const;
      await run(Effect.flatMap(PaymentsRepository, (r) => Effect.forEach(statuses, (a, i) => r.insertAttempt(attemptRecord(intent, i + 1, i + 1, a)), { discard: true })));
      await run(Effect.flatMap(PaymentsRepository, (r) => r.insertAttempt(attemptRecord(other, 9, 1, { status: "declined", declineCode: "expired_card" }))));
      await run(Effect.flatMap(PaymentsRepository, (r) => r.insertRefund(refundRecord(intent, 1, 100))));
      await run(Effect.flatMap(Disputes, (d) => d.apply(disputeRecord(intent, 1, 100))));
      await run(Effect.flatMap(Disputes, (d) => d.apply(disputeRecord(intent, 2, 100, { status: "lost" }))));
      t.same(await run(signalsOf(intent.id)), {
        attempts: 5,
        declinedAttempts: 3,
        unknownOutcomes: 1,
        declineCodes: ["card_declined", "insufficient_funds"],
        disputes: 2,
        lostDisputes: 1,
        refunds: 1,
      });
      t.same(await run(signalsOf(other.id)), { ...none, attempts: 1, declinedAttempts: 1, declineCodes: ["expired_card"] }, "the other intent's own history only");
    },
  },
];

/** Runs the risk signals kit. */
export const riskSignalsSuite = (options: SuiteOptions<RiskSignalsKitPorts>): Promise<unknown> => runCases(options, riskSignalsCases);
