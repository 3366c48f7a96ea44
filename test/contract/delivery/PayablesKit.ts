/**
 * Contract kit for Payables: a payable is recorded once per settlement component key (a
 * redelivered settlement records nothing twice, whatever its new ids) and `record` answers how many
 * were new; an order's payables are read back as written, by component key, its own only; every
 * operator replay of a dead settlement job is recorded (append-only, with or without an order).
 */
import { Effect, Exit } from "effect";
import type { Order } from "../../../core/delivery/model/Order.js";
import { PayableId, SettlementEntryId, type DeliveryId } from "../../../core/delivery/model/Ids.js";
import type { Payable } from "../../../core/delivery/model/Payable.js";
import type { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import { Payables } from "../../../ports/delivery/Payables.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { SettlementLedger } from "../../../ports/delivery/SettlementLedger.js";
import { at, exitOf, runCases, T0, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { seedDelivery, settlementOf, uid } from "./fixtures.js";

/** The ports this kit needs (a payable's component key is a posted settlement entry's; orders and deliveries through their repositories). */
export type PayablesKitPorts = Payables | SettlementLedger | DispatchRepository | OrdersRepository | RestaurantsRepository;

const payables = <A>(f: (r: Payables) => Effect.Effect<A>) => Effect.flatMap(Payables, f);
const keys = (rows: ReadonlyArray<Payable>) => rows.map((row) => row.componentKey);

/** Order `n` delivered, with its settlement posted (entry ids from `10 * n`); answers the order and its delivery id. */
const seedSettled = async (run: Run<PayablesKitPorts>, n: number) => {
  const { order, delivery } = await run(seedDelivery(n));
  await run(Effect.flatMap(SettlementLedger, (l) => l.post(settlementOf(order, delivery.id, 10 * n))));
  return { order, deliveryId: delivery.id };
};

/** The restaurant's or the courier's payable of `order` (id `uid("pyb", n)`), as the settlement job makes it. */
const payable = (n: number, order: Order, deliveryId: DeliveryId, who: "restaurant" | "courier"): Payable => {
  const account = who === "restaurant" ? `restaurant:${order.restaurantId}` : `courier:${uid("cou", 1)}`;
  return {
    id: PayableId.make(uid("pyb", n)),
    orderId: order.id,
    deliveryId,
    componentKey: `order:${order.id}:${who}_payable`,
    account,
    amountMinor: who === "restaurant" ? order.subtotalMinor + order.taxMinor : order.deliveryFeeMinor,
    currency: order.currency,
    payoutBatch: `${account}:${order.currency}:2030-01-01`,
    createdAt: T0,
    reverses: null,
  };
};

/** The cases of the payables kit. */
export const payablesCases: ReadonlyArray<KitCase<PayablesKitPorts>> = [
  {
    name: "payables: recorded once per component key: a redelivered settlement records nothing and answers 0; a mix answers only the new ones",
    run: async (t, run) => {
      const { order, deliveryId } = await seedSettled(run, 1);
      const restaurant = payable(1, order, deliveryId, "restaurant");
      const courier = payable(2, order, deliveryId, "courier");
      t.equal(await run(payables((p) => p.record([restaurant]))), 1);
      t.equal(await run(payables((p) => p.record([payable(3, order, deliveryId, "restaurant"), courier]))), 1, "the restaurant's again under a new id, the courier's new");
      t.equal(
        await run(payables((p) => p.record([payable(4, order, deliveryId, "restaurant"), payable(5, order, deliveryId, "courier")]))),
        0,
        "the whole settlement redelivered under new ids",
      );
      t.equal(await run(payables((p) => p.record([restaurant, courier]))), 0, "the very same payables again (a retried call)");
      t.equal(await run(payables((p) => p.record([]))), 0, "nothing to record");
      t.same(await run(payables((p) => p.ofOrder(order.id))), [courier, restaurant], "each once, the first record standing");
    },
  },
  {
    name: "payables: an order's payables by component key, read back as written, its own only; none for an order without any",
    run: async (t, run) => {
      const a = await seedSettled(run, 1);
      const b = await seedSettled(run, 2);
      const mine = [payable(1, a.order, a.deliveryId, "restaurant"), payable(2, a.order, a.deliveryId, "courier")];
      const theirs = [payable(3, b.order, b.deliveryId, "restaurant"), payable(4, b.order, b.deliveryId, "courier")];
      t.equal(await run(payables((p) => p.record([mine[0]!, theirs[0]!, mine[1]!, theirs[1]!]))), 4, "two orders' payables in one call");
      t.same(await run(payables((p) => p.ofOrder(a.order.id))), [mine[1], mine[0]], "by component key: courier_payable before restaurant_payable");
      t.same(keys(await run(payables((p) => p.ofOrder(b.order.id)))), [theirs[1]!.componentKey, theirs[0]!.componentKey], "the other order's are apart");
      t.same(await run(payables((p) => p.ofOrder(uid("ord", 9)))), []);
    },
  },
  {
    name: "payables: every operator replay of a dead settlement job is recorded, the same job again and a job without an order included",
    run: async (t, run) => {
      const { order } = await seedSettled(run, 1);
      const replay = (n: number, orderId: string | null) => payables((p) => p.recordReplay({ id: uid("rpl", n), jobId: uid("job", 1), orderId, actorId: uid("usr", 1), reason: "provider outage over", at: at(n * 1000) }));
      t.ok(Exit.isSuccess(await run(exitOf(replay(1, order.id)))), "a replay of the job");
      t.ok(Exit.isSuccess(await run(exitOf(replay(2, order.id)))), "the same job replayed again is another record");
      t.ok(Exit.isSuccess(await run(exitOf(replay(3, null)))), "a job whose order is unknown");
      t.equal((await run(payables((p) => p.ofOrder(order.id)))).length, 0, "a replay records no payable");
    },
  },
  {
    name: "payables: a reversing payable (negated, under the reversal's component key, naming the payable it reverses) is recorded once and read back as written",
    run: async (t, run) => {
      const { order, deliveryId } = await seedSettled(run, 1);
      const originals = settlementOf(order, deliveryId, 10);
      const reversal = originals.map((entry, i) => ({
        ...entry,
        id: SettlementEntryId.make(uid("stl", 50 + i)),
        componentKey: `${entry.componentKey}:reversal`,
        amountMinor: -entry.amountMinor,
        reverses: entry.componentKey,
        reason: "refunded",
      }));
      await run(Effect.flatMap(SettlementLedger, (l) => l.post(reversal)));
      const owed = payable(1, order, deliveryId, "restaurant");
      const undone: Payable = { ...owed, id: PayableId.make(uid("pyb", 2)), componentKey: `${owed.componentKey}:reversal`, amountMinor: -owed.amountMinor, reverses: owed.componentKey };
      t.equal(await run(payables((p) => p.record([owed]))), 1);
      t.equal(await run(payables((p) => p.record([undone]))), 1, "the reversing payable");
      t.equal(await run(payables((p) => p.record([{ ...undone, id: PayableId.make(uid("pyb", 3)) }]))), 0, "once");
      t.same(await run(payables((p) => p.ofOrder(order.id))), [owed, undone], "both, by component key, as written");
    },
  },
];

/** Runs the payables kit. */
export const payablesSuite = (options: SuiteOptions<PayablesKitPorts>): Promise<unknown> => runCases(options, payablesCases);
