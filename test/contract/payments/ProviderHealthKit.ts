/**
 * Contract kit for ProviderHealthReads: the snapshot counts open work with the provider across
 * merchants, each count exactly what the port documents — intents in processing whose current
 * attempt is unknown (not an earlier attempt's), attempts pending since strictly before
 * `unrecordedBefore`, pending refunds, open `unresolved` exceptions — and answers when the newest
 * stored provider event was received (null before any); an empty store reads all zero.
 */
import { Effect } from "effect";
import type { PaymentAttempt } from "../../../core/payments/model/PaymentAttempt.js";
import type { PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import { ProviderHealthReads, type ProviderHealthSnapshot } from "../../../ports/payments/ProviderHealth.js";
import { ReconciliationRepository } from "../../../ports/payments/ReconciliationRepository.js";
import { at, runCases, T0, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { attemptRecord, capturedOverrides, refundRecord, seedIntent, seedRefund, uid } from "./fixtures.js";
import { storedEventRecord } from "./ProviderEventsInboxKit.js";
import { exceptionRecord } from "./ReconciliationRepositoryKit.js";

/** The ports this kit needs (the open work is written through the ports that own it). */
export type ProviderHealthKitPorts = ProviderHealthReads | PaymentsRepository | ReconciliationRepository | ProviderEventsInbox;

const snapshot = (unrecordedBefore: Date) => Effect.flatMap(ProviderHealthReads, (h) => h.snapshot({ unrecordedBefore }));
const repo = <A>(f: (r: PaymentsRepository) => Effect.Effect<A>) => Effect.flatMap(PaymentsRepository, f);

const empty: ProviderHealthSnapshot = { unknownAttempts: 0, unrecordedAttempts: 0, pendingRefunds: 0, openUnresolvedExceptions: 0, lastProviderEventAt: null };

/** Intent `intentN` of merchant `merchantN` with `overrides`, and its attempts (numbered 1, 2, … with their statuses and start times). */
const seedAttempts = async (
  run: Run<ProviderHealthKitPorts>,
  merchantN: number,
  intentN: number,
  overrides: Partial<PaymentIntent>,
  attempts: ReadonlyArray<Partial<PaymentAttempt>>,
) => {
  const intent = await run(seedIntent(merchantN, intentN, { attemptCount: attempts.length, ...overrides }));
  await run(repo((r) => Effect.forEach(attempts, (a, i) => r.insertAttempt(attemptRecord(intent, 10 * intentN + i, i + 1, a)), { discard: true })));
  return intent;
};

/** The cases of the provider health kit. */
export const providerHealthCases: ReadonlyArray<KitCase<ProviderHealthKitPorts>> = [
  {
    name: "provider health: an empty store reads every count zero and no provider event",
    run: async (t, run) => {
      t.same(await run(snapshot(at(60_000))), empty);
    },
  },
  {
    name: "provider health: unknown outcomes count the intents in processing whose current attempt is unknown, across merchants, nothing else",
    run: async (t, run) => {
      await seedAttempts(run, 1, 1, { status: "processing" }, [{ status: "unknown" }, { status: "unknown" }]);
      await seedAttempts(run, 2, 2, { status: "processing" }, [{ status: "unknown" }]);
      await seedAttempts(run, 1, 3, { status: "processing" }, [{ status: "unknown" }, { status: "declined", declineCode: "card_declined" }]);
      await seedAttempts(run, 1, 4, { status: "requires_payment_method" }, [{ status: "unknown" }]);
      await seedAttempts(run, 1, 5, { status: "processing" }, [{ status: "authorized" }]);
      t.same(
        await run(snapshot(T0)),
        { ...empty, unknownAttempts: 2 },
        "intents 1 and 2 (intent 1 once, by its current attempt); not intent 3, whose unknown attempt is not its current one, nor intent 4, not processing",
      );
    },
  },
  {
    name: "provider health: unrecorded answers count the attempts pending since strictly before `unrecordedBefore`, across merchants",
    run: async (t, run) => {
      await seedAttempts(run, 1, 1, { status: "processing" }, [{ status: "pending", createdAt: at(1000) }]);
      await seedAttempts(run, 2, 2, { status: "processing" }, [{ status: "pending", createdAt: at(2000) }]);
      await seedAttempts(run, 1, 3, { status: "processing" }, [{ status: "pending", createdAt: at(3000) }]);
      await seedAttempts(run, 1, 4, { status: "requires_capture" }, [{ status: "authorized", createdAt: at(0) }]);
      await seedAttempts(run, 1, 5, { status: "requires_payment_method" }, [{ status: "declined", declineCode: "card_declined", createdAt: at(0) }]);
      t.equal((await run(snapshot(at(2000)))).unrecordedAttempts, 1, "one started before; one started exactly at `unrecordedBefore` is not counted");
      t.equal((await run(snapshot(at(2001)))).unrecordedAttempts, 2);
      t.same(await run(snapshot(at(60_000))), { ...empty, unrecordedAttempts: 3 }, "answered attempts never count, however old; a pending one is not unknown");
      t.equal((await run(snapshot(at(0)))).unrecordedAttempts, 0);
    },
  },
  {
    name: "provider health: pending refunds count the refunds awaiting the provider's answer, across merchants, nothing else",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1, capturedOverrides));
      const b = await run(seedIntent(2, 2, capturedOverrides));
      await run(
        Effect.forEach(
          [refundRecord(a, 1, 100), refundRecord(b, 2, 100), refundRecord(a, 3, 100, { status: "succeeded" }), refundRecord(b, 4, 100, { status: "failed", failureReason: "card closed" })],
          (refund, i) => seedRefund(refund, i),
          { discard: true },
        ),
      );
      t.same(await run(snapshot(at(60_000))), { ...empty, pendingRefunds: 2 });
    },
  },
  {
    name: "provider health: open unresolved exceptions count only open exceptions of kind unresolved, of any merchant or none",
    run: async (t, run) => {
      const m1 = (await run(seedIntent(1, 1))).merchantId;
      const m2 = (await run(seedIntent(2, 2))).merchantId;
      await run(
        Effect.flatMap(ReconciliationRepository, (r) =>
          Effect.gen(function* () {
            for (const e of [
              exceptionRecord(1, m1, { kind: "unresolved" }),
              exceptionRecord(2, m2, { kind: "unresolved" }),
              exceptionRecord(3, null, { kind: "unresolved", subjectType: "unknown" }),
              exceptionRecord(4, m1, { kind: "amount" }),
              exceptionRecord(5, m1, { kind: "unresolved" }),
            ]) {
              yield* r.insertException(e);
            }
            yield* r.markResolved({ id: uid("rex", 5), resolvedAt: at(100), resolution: { action: "provider answered" } });
          }),
        ),
      );
      t.same(await run(snapshot(at(60_000))), { ...empty, openUnresolvedExceptions: 3 }, "not the amount mismatch, not the resolved one");
    },
  },
  {
    name: "provider health: the last provider event is when the newest stored event was received, whatever the order of insertion",
    run: async (t, run) => {
      const merchantId = (await run(seedIntent(1, 1))).merchantId;
      const inbox = (n: number, receivedAt: Date) => Effect.flatMap(ProviderEventsInbox, (r) => r.insert(storedEventRecord(n, merchantId, { receivedAt })));
      await run(inbox(1, at(5000)));
      t.same((await run(snapshot(at(0)))).lastProviderEventAt, at(5000), "the only event");
      await run(inbox(2, at(9000)));
      await run(inbox(3, at(7000)));
      t.same(await run(snapshot(at(0))), { ...empty, lastProviderEventAt: at(9000) }, "the newest received, not the last inserted");
    },
  },
];

/** Runs the provider health kit. */
export const providerHealthSuite = (options: SuiteOptions<ProviderHealthKitPorts>): Promise<unknown> => runCases(options, providerHealthCases);
