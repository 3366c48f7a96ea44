/**
 * Contract kit for RiskHolds: `place` stores a hold and answers false, storing nothing, while the
 * intent already has an active one; `active` answers the intent's active hold; `release` releases
 * the active hold of the given merchant once (null for another merchant, a second release or an
 * intent without a hold) and leaves the placement as it was; `list` answers a merchant's holds
 * newest first, before `before`, its own only, active ones only when asked.
 */
import { Effect } from "effect";
import { RiskHoldId } from "../../../core/payments/model/Ids.js";
import type { PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import type { RiskHold } from "../../../core/payments/model/RiskHold.js";
import type { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { RiskHolds } from "../../../ports/payments/RiskHolds.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedIntent, uid } from "./fixtures.js";

/** The ports this kit needs (intents are written through the PaymentsRepository). */
export type RiskHoldsKitPorts = RiskHolds | PaymentsRepository;

const holds = <A>(f: (r: RiskHolds) => Effect.Effect<A>) => Effect.flatMap(RiskHolds, f);

/** Active hold `n` of `intent`, placed at time `n`. */
export const holdRecord = (intent: PaymentIntent, n: number, overrides: Partial<RiskHold> = {}): RiskHold => ({
  id: RiskHoldId.make(uid("hld", n)),
  intentId: intent.id,
  merchantId: intent.merchantId,
  reason: `reason ${n}`,
  placedBy: "merchant:m/key:k",
  placedAt: at(n),
  releasedBy: null,
  releaseReason: null,
  releasedAt: null,
  ...overrides,
});

const releaseOf = (intent: PaymentIntent, when: number, merchantId: string = intent.merchantId) =>
  holds((r) => r.release({ merchantId, intentId: intent.id, releasedBy: "merchant:m/key:analyst", reason: "cleared", at: at(when) }));

/** The cases of the risk holds kit. */
export const riskHoldsCases: ReadonlyArray<KitCase<RiskHoldsKitPorts>> = [
  {
    name: "risk holds: one active hold per intent; place answers false and stores nothing while one is active",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1));
      t.equal(await run(holds((r) => r.active(intent.id))), null, "no hold yet");
      t.equal(await run(holds((r) => r.place(holdRecord(intent, 1)))), true);
      t.same(await run(holds((r) => r.active(intent.id))), holdRecord(intent, 1), "read back as stored");
      t.equal(await run(holds((r) => r.place(holdRecord(intent, 2)))), false, "a second active hold is refused");
      t.same(await run(holds((r) => r.active(intent.id))), holdRecord(intent, 1), "the first stays the active one");
      const other = await run(seedIntent(1, 2));
      t.equal(await run(holds((r) => r.place(holdRecord(other, 3)))), true, "another intent has its own");
    },
  },
  {
    name: "risk holds: release releases the merchant's active hold once, and a new hold may follow",
    run: async (t, run) => {
      const intent = await run(seedIntent(1, 1));
      await run(holds((r) => r.place(holdRecord(intent, 1))));
      t.equal(await run(releaseOf(intent, 50, uid("mer", 2))), null, "another merchant releases nothing");
      t.same(
        await run(releaseOf(intent, 50)),
        holdRecord(intent, 1, { releasedBy: "merchant:m/key:analyst", releaseReason: "cleared", releasedAt: at(50) }),
        "the released hold, its placement unchanged",
      );
      t.equal(await run(holds((r) => r.active(intent.id))), null, "no active hold after the release");
      t.equal(await run(releaseOf(intent, 60)), null, "a second release finds nothing");
      t.equal(await run(holds((r) => r.place(holdRecord(intent, 2)))), true, "held again after the release");
      t.equal((await run(holds((r) => r.active(intent.id))))?.id, holdRecord(intent, 2).id);
    },
  },
  {
    name: "risk holds: list answers a merchant's holds newest first, before `before`, its own only, active ones when asked",
    run: async (t, run) => {
      const intents = [await run(seedIntent(1, 1)), await run(seedIntent(1, 2)), await run(seedIntent(1, 3))];
      for (const [i, intent] of intents.entries()) await run(holds((r) => r.place(holdRecord(intent, i + 1))));
      await run(releaseOf(intents[1]!, 90));
      const theirs = await run(seedIntent(2, 4));
      await run(holds((r) => r.place(holdRecord(theirs, 4))));
      const merchantId = intents[0]!.merchantId;
      const ids = (rows: ReadonlyArray<RiskHold>) => rows.map((h) => h.id);
      t.same(ids(await run(holds((r) => r.list({ merchantId, activeOnly: false, limit: 10 })))), [uid("hld", 3), uid("hld", 2), uid("hld", 1)]);
      t.same(ids(await run(holds((r) => r.list({ merchantId, activeOnly: false, limit: 2 })))), [uid("hld", 3), uid("hld", 2)], "at most limit");
      t.same(ids(await run(holds((r) => r.list({ merchantId, activeOnly: false, before: uid("hld", 2), limit: 10 })))), [uid("hld", 1)], "strictly before");
      t.same(ids(await run(holds((r) => r.list({ merchantId, activeOnly: true, limit: 10 })))), [uid("hld", 3), uid("hld", 1)], "active only");
      t.same(ids(await run(holds((r) => r.list({ merchantId: theirs.merchantId, activeOnly: false, limit: 10 })))), [uid("hld", 4)], "each merchant its own");
    },
  },
];

/** Runs the risk holds kit. */
export const riskHoldsSuite = (options: SuiteOptions<RiskHoldsKitPorts>): Promise<unknown> => runCases(options, riskHoldsCases);
