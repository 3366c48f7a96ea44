/**
 * Contract kit for SettlementLedger, the delivery module's settlement entries: an order's
 * balanced entries post once (a retried completion answers "duplicate" and adds nothing), are
 * read back per order, and the ledger sums to zero per currency; a correction is a linked
 * reversal, at most one per component.
 */
import { Effect, Exit } from "effect";
import { SettlementEntryId } from "../../../core/delivery/model/Ids.js";
import type { SettlementEntry } from "../../../core/delivery/model/SettlementEntry.js";
import type { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { SettlementLedger } from "../../../ports/delivery/SettlementLedger.js";
import { at, exitOf, runCases, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { seedDelivery, settlementOf, uid } from "./fixtures.js";

/** The ports this kit needs (orders and deliveries are written through their repositories). */
export type SettlementLedgerKitPorts = SettlementLedger | DispatchRepository | OrdersRepository | RestaurantsRepository;

const ledger = <A>(f: (r: SettlementLedger) => Effect.Effect<A>) => Effect.flatMap(SettlementLedger, f);

/** Order `n` with its delivery, stored. */
const seedDelivered = async (run: Run<SettlementLedgerKitPorts>, n: number) => {
  const { order, delivery } = await run(seedDelivery(n));
  return { order, deliveryId: delivery.id };
};

/** The cases of the settlement ledger kit. */
export const settlementLedgerCases: ReadonlyArray<KitCase<SettlementLedgerKitPorts>> = [
  {
    name: "settlement: an order's balanced entries post once; a retry answers duplicate and adds nothing",
    run: async (t, run) => {
      const { order, deliveryId } = await seedDelivered(run, 1);
      const entries = settlementOf(order, deliveryId, 1);
      t.equal(await run(ledger((l) => l.post(entries))), "posted");
      t.equal(await run(ledger((l) => l.post(settlementOf(order, deliveryId, 11)))), "duplicate", "the same component keys under new ids");
      const stored = await run(ledger((l) => l.entriesOfOrder(order.id)));
      t.equal(stored.length, 4, "four components, once");
      t.same([...stored].sort((a, b) => a.id.localeCompare(b.id)), entries, "read back as posted");
      t.equal(stored.reduce((sum, e) => sum + e.amountMinor, 0), 0, "they balance");
      t.same(await run(ledger((l) => l.entriesOfOrder(uid("ord", 9)))), [], "another order has none");
    },
  },
  {
    name: "settlement: the ledger sums to zero per currency",
    run: async (t, run) => {
      const a = await seedDelivered(run, 1);
      const b = await seedDelivered(run, 2);
      await run(ledger((l) => l.post(settlementOf(a.order, a.deliveryId, 1))));
      await run(ledger((l) => l.post(settlementOf(b.order, b.deliveryId, 11, "USD"))));
      t.same(await run(ledger((l) => l.totalsByCurrency)), [
        { currency: "EUR", totalMinor: 0 },
        { currency: "USD", totalMinor: 0 },
      ]);
    },
  },
  {
    name: "settlement: a correction is a linked reversal, at most one per component",
    run: async (t, run) => {
      const { order, deliveryId } = await seedDelivered(run, 1);
      const entries = settlementOf(order, deliveryId, 1);
      await run(ledger((l) => l.post(entries)));
      const reversal = (firstId: number): SettlementEntry[] =>
        entries.map((e, i) => ({
          ...e,
          id: SettlementEntryId.make(uid("stl", firstId + i)),
          componentKey: `${e.componentKey}:reversal`,
          amountMinor: -e.amountMinor,
          reverses: e.componentKey,
          reason: "customer refunded: cold food",
          createdAt: at(60_000),
        }));
      t.equal(await run(ledger((l) => l.post(reversal(21)))), "posted");
      const twice = await run(exitOf(ledger((l) => l.post(reversal(31).map((e) => ({ ...e, componentKey: `${e.componentKey}-2` }))))));
      t.ok(Exit.isFailure(twice), "a component is reversed at most once");
      const stored = await run(ledger((l) => l.entriesOfOrder(order.id)));
      t.equal(stored.length, 8);
      t.equal(stored.reduce((sum, e) => sum + e.amountMinor, 0), 0, "the order still balances");
      t.same(await run(ledger((l) => l.totalsByCurrency)), [{ currency: "EUR", totalMinor: 0 }]);
    },
  },
];

/** Runs the settlement ledger kit. */
export const settlementLedgerSuite = (options: SuiteOptions<SettlementLedgerKitPorts>): Promise<unknown> => runCases(options, settlementLedgerCases);
