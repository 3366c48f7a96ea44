/**
 * Contract kit for the ProviderEventsInbox: a verified event is stored once (its provider event
 * id is unique: a second insert is false and changes nothing) and read back as written; the
 * attempt and the refund an event names are found by our stable references. An event stored
 * through `insert` is stored minimized: the one-off minimization never lists or rewrites it.
 */
import { Effect } from "effect";
import type { StoredProviderEvent } from "../../../core/payments/model/ProviderEvent.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { attemptRecord, capturedOverrides, refundRecord, seedIntent, seedMerchant, uid } from "./fixtures.js";
import { MerchantId, StoredProviderEventId } from "../../../core/payments/model/Ids.js";

/** The ports this kit needs (merchants, attempts and refunds are written through the PaymentsRepository). */
export type ProviderEventsInboxKitPorts = ProviderEventsInbox | PaymentsRepository;

const inbox = <A>(f: (r: ProviderEventsInbox) => Effect.Effect<A>) => Effect.flatMap(ProviderEventsInbox, f);

/** Stored event `n` with provider event id `evt_<n>` of merchant `merchantId`. */
export const storedEventRecord = (n: number, merchantId: MerchantId | null, overrides: Partial<StoredProviderEvent> = {}): StoredProviderEvent => ({
  id: StoredProviderEventId.make(uid("pev", n)),
  providerEventId: `evt_${n}`,
  type: "payment.captured",
  payload: { id: `evt_${n}`, data: { amount: 1000, nested: ["a", 1, null] } },
  status: "processed",
  outcome: "applied",
  merchantId,
  providerObject: `pp_${n}`,
  occurredAt: at(n),
  receivedAt: at(n + 1),
  ...overrides,
});

/** The cases of the provider events inbox kit. */
export const providerEventsInboxCases: ReadonlyArray<KitCase<ProviderEventsInboxKitPorts>> = [
  {
    name: "provider events: an event is stored once per provider event id; a second insert is false and changes nothing",
    run: async (t, run) => {
      const merchant = await run(seedMerchant(1));
      t.equal(await run(inbox((r) => r.insert(storedEventRecord(1, merchant.id)))), true);
      t.same(await run(inbox((r) => r.find("evt_1"))), storedEventRecord(1, merchant.id), "read back as written, payload included");
      const again = storedEventRecord(1, merchant.id, { id: StoredProviderEventId.make(uid("pev", 2)), status: "ignored", outcome: "duplicate", receivedAt: at(50) });
      t.equal(await run(inbox((r) => r.insert(again))), false, "the same provider event id again");
      t.same(await run(inbox((r) => r.find("evt_1"))), storedEventRecord(1, merchant.id), "the first one stands");
      t.equal(await run(inbox((r) => r.find("evt_9"))), null);
    },
  },
  {
    name: "provider events: an event of no merchant (ignored) is stored and found too",
    run: async (t, run) => {
      const event = storedEventRecord(3, null, { status: "ignored", outcome: "unknown reference", providerObject: null, type: "other" });
      t.equal(await run(inbox((r) => r.insert(event))), true);
      t.same(await run(inbox((r) => r.find("evt_3"))), event);
    },
  },
  {
    name: "provider events: the attempt and the refund an event names are found by reference; unknown references find nothing",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1, capturedOverrides));
      const attempt = attemptRecord(intent, 1, 1);
      const refund = refundRecord(intent, 1, 100);
      await run(Effect.flatMap(PaymentsRepository, (r) => Effect.zipRight(r.insertAttempt(attempt), r.insertRefund(refund))));
      t.same(await run(inbox((r) => r.findAttemptByReference(attempt.reference))), attempt);
      t.same(await run(inbox((r) => r.findRefundByReference(refund.reference))), refund);
      t.equal(await run(inbox((r) => r.findAttemptByReference(refund.reference))), null, "a refund's reference names no attempt");
      t.equal(await run(inbox((r) => r.findRefundByReference("refund:unknown"))), null);
      t.equal(await run(inbox((r) => r.findAttemptByReference("unknown"))), null);
    },
  },
  {
    name: "provider events: an inserted event is stored minimized; the minimization neither lists nor rewrites it",
    run: async (t, run) => {
      const merchant = await run(seedMerchant(4));
      const event = storedEventRecord(4, merchant.id);
      t.equal(await run(inbox((r) => r.insert(event))), true);
      t.same(await run(inbox((r) => r.listUnminimized({ after: null, limit: 10 }))), [], "not listed as unminimized");
      t.equal(await run(inbox((r) => r.countUnminimized(null))), 0);
      t.equal(await run(inbox((r) => r.minimizePayload({ id: event.id, payload: { type: event.type, data: { kind: "other" } }, at: at(60) }))), false, "no rewrite");
      t.same(await run(inbox((r) => r.find(event.providerEventId))), event, "the row stands as written");
    },
  },
];

/** Runs the provider events inbox kit. */
export const providerEventsInboxSuite = (options: SuiteOptions<ProviderEventsInboxKitPorts>): Promise<unknown> => runCases(options, providerEventsInboxCases);
