/**
 * Contract kit for the e-commerce CheckoutRiskRepository (ports/commerce/CheckoutRiskRepository.ts;
 * core/commerce/CheckoutRisk.ts): each signal is read on its own, in the order asked; a signal
 * counts its checkouts recorded since the window's start whose payment is unresolved (the order's
 * payment record, written through the OrdersRepository, is `authorizing` or `unknown`), and its
 * declines since then, oldest first and at most `limit`; a declined checkout is no longer
 * unresolved; an order's signals are marked declined once; no signals read and lock nothing;
 * retention deletes signals recorded and locks last taken before its cut, in batches of at most
 * `limit` whose count tells the caller when nothing is left. With concurrent connections: checkouts under one signal
 * are counted one after the other under its lock, whatever order they name their signals in.
 *
 * An adapter of this port must see the payment records of the orders its signals belong to: the
 * kit's layer provides the OrdersRepository (and the store and catalog repositories that an order
 * needs) from the same storage, and `Transactions` for the race.
 */
import { Effect } from "effect";
import type { OrderPayment, OrderPaymentStatus } from "../../../core/commerce/model/OrderPayment.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { CheckoutRiskRepository, type SignalRisk } from "../../../ports/commerce/CheckoutRiskRepository.js";
import { OrdersRepository } from "../../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { Transactions } from "../../../ports/Transactions.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, orderRecord, seedStore } from "./fixtures.js";

/** The ports this kit needs. */
export type CheckoutRiskKitPorts = CheckoutRiskRepository | OrdersRepository | StoresRepository | CatalogRepository | Transactions;

const risk = <A>(f: (r: CheckoutRiskRepository) => Effect.Effect<A>) => Effect.flatMap(CheckoutRiskRepository, f);

/** Signal `n`: a digest, as checkout records them (64 lowercase hex digits, never the raw value). */
export const kitSignal = (n: number): string => n.toString(16).padStart(64, "0");

/** A payment record of order `n` in `status`. */
const paymentOf = (n: number, status: OrderPaymentStatus, updatedAt = at(n)): OrderPayment => ({
  orderId: kitId.order(n),
  storeId: kitId.store(1),
  merchantId: "m_1",
  paymentId: null,
  idempotencyKey: `order:${kitId.order(n)}/authorize`,
  paymentMethod: "pm_card_visa",
  status,
  amountMinor: 100,
  capturedMinor: 0,
  refundedMinor: 0,
  updatedAt,
});

/** Store 1 and orders `ns`, each with a payment still authorizing (a checkout in flight). */
const seedCheckouts = (ns: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    yield* seedStore(1);
    const orders = yield* OrdersRepository;
    for (const n of ns) {
      yield* orders.insertOrder(orderRecord(n), []);
      yield* orders.insertPayment(paymentOf(n, "authorizing"));
    }
  });

/** Records order `n`'s checkout under `signals` at `at(ms)`. */
const record = (n: number, signals: ReadonlyArray<number>, ms: number) => risk((r) => r.recordSignals(kitId.order(n), signals.map(kitSignal), at(ms)));

/** The risk of `signals` since `at(sinceMs)`, declines as milliseconds after T0. */
const riskOf = (signals: ReadonlyArray<number>, sinceMs: number, limit = 10) =>
  Effect.map(
    risk((r) => r.riskSince(signals.map(kitSignal), at(sinceMs), limit)),
    (risks: ReadonlyArray<SignalRisk>) => risks.map((s) => ({ declines: s.declines.map((d) => d.getTime() - at(0).getTime()), unresolved: s.unresolved })),
  );

/** Runs a retention step until a batch answers fewer than `limit` (at most `rounds` batches); the counts. */
const drain = <R>(step: Effect.Effect<number, never, R>, limit: number, rounds = 10) =>
  Effect.gen(function* () {
    const counts: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const n = yield* step;
      counts.push(n);
      if (n < limit) break;
    }
    return counts;
  });

/** The cases of the checkout risk kit. */
export const checkoutRiskCases: ReadonlyArray<KitCase<CheckoutRiskKitPorts>> = [
  {
    name: "checkout risk: a signal counts its checkouts recorded since the window's start whose payment is unresolved, each signal on its own, in the order asked",
    run: async (t, run) => {
      await run(seedCheckouts([1, 2, 3]));
      await run(record(1, [1, 2], 10));
      await run(record(2, [1], 20));
      await run(record(3, [3], 0));
      t.same(
        await run(riskOf([2, 1, 3, 4], 5)),
        [
          { declines: [], unresolved: 1 },
          { declines: [], unresolved: 2 },
          { declines: [], unresolved: 0 },
          { declines: [], unresolved: 0 },
        ],
        "signal 2 has one checkout in flight, signal 1 two; signal 3's checkout is before the window; signal 4 has none",
      );
    },
  },
  {
    name: "checkout risk: a checkout whose payment is answered no longer counts as unresolved; one whose answer is unknown still does",
    run: async (t, run) => {
      await run(seedCheckouts([1, 2, 3]));
      for (const n of [1, 2, 3]) await run(record(n, [1], n));
      const orders = (f: (r: OrdersRepository) => Effect.Effect<boolean>) => run(Effect.flatMap(OrdersRepository, f));
      t.equal(await orders((r) => r.updatePayment({ ...paymentOf(1, "authorized"), paymentId: "pay_1", updatedAt: at(50) }, "authorizing")), true);
      t.equal(await orders((r) => r.updatePayment(paymentOf(2, "unknown", at(50)), "authorizing")), true);
      t.same(await run(riskOf([1], 0)), [{ declines: [], unresolved: 2 }], "the authorized checkout is settled; unknown and authorizing are in flight");
      t.equal(await orders((r) => r.updatePayment(paymentOf(2, "declined", at(60)), "unknown")), true);
      t.same(await run(riskOf([1], 0)), [{ declines: [], unresolved: 1 }], "an unknown answer later declined is settled too");
    },
  },
  {
    name: "checkout risk: a declined checkout counts as a decline, not as unresolved; declines are the newest `limit` of the window (a retry waits for the bound's oldest of them), answered oldest first",
    run: async (t, run) => {
      await run(seedCheckouts([1, 2, 3, 4]));
      for (const n of [1, 2, 3]) await run(record(n, [1], n));
      await run(record(4, [1], 16));
      await run(risk((r) => r.markDeclined(kitId.order(1), at(10))));
      await run(risk((r) => r.markDeclined(kitId.order(2), at(30))));
      await run(risk((r) => r.markDeclined(kitId.order(3), at(20))));
      t.same(await run(riskOf([1], 15)), [{ declines: [20, 30], unresolved: 1 }], "the decline at 10 is before the window; order 4 is in flight");
      t.same(await run(riskOf([1], 0, 2)), [{ declines: [20, 30], unresolved: 1 }], "the two newest of three declines, oldest first");
      t.same(await run(riskOf([2], 0)), [{ declines: [], unresolved: 0 }], "a decline counts only under its own signals");
    },
  },
  {
    name: "checkout risk: an order's signals are marked declined once; a second mark keeps the first time",
    run: async (t, run) => {
      await run(seedCheckouts([1]));
      await run(record(1, [1, 2], 1));
      await run(risk((r) => r.markDeclined(kitId.order(1), at(10))));
      await run(risk((r) => r.markDeclined(kitId.order(1), at(50))));
      t.same(
        await run(riskOf([1, 2], 0)),
        [
          { declines: [10], unresolved: 0 },
          { declines: [10], unresolved: 0 },
        ],
        "every signal of the order keeps its first decline",
      );
      t.same(await run(riskOf([1], 40)), [{ declines: [], unresolved: 0 }], "the second mark did not move the decline into a later window");
    },
  },
  {
    name: "checkout risk: a checkout without signals reads, locks and records nothing",
    run: async (t, run) => {
      await run(seedCheckouts([1]));
      t.same(await run(risk((r) => r.riskSince([], at(0), 10))), [], "no risks");
      await run(risk((r) => r.lockSignals([], at(1))));
      await run(risk((r) => r.recordSignals(kitId.order(1), [], at(1))));
      t.equal(await run(risk((r) => r.deleteLocksBefore(at(1000), 10))), 0, "no lock was taken");
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(1000), 10))), 0, "no signal was recorded");
    },
  },
  {
    name: "checkout risk retention: signals recorded before the cut are deleted in batches until a batch answers fewer than its limit; later ones stay",
    run: async (t, run) => {
      await run(seedCheckouts([1, 2, 3]));
      await run(record(1, [1, 2, 3], 1));
      await run(record(2, [1], 2));
      await run(record(3, [1], 100));
      const counts = await run(drain(risk((r) => r.deleteRecordedBefore(at(50), 2)), 2));
      t.ok(counts.length < 10, "the batches end");
      t.equal(counts.reduce((a, b) => a + b, 0), 4, "the four signals recorded before the cut, each counted once");
      t.same(await run(riskOf([1, 2, 3], 0)), [{ declines: [], unresolved: 1 }, { declines: [], unresolved: 0 }, { declines: [], unresolved: 0 }], "the checkout after the cut stays");
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(50), 2))), 0, "nothing is left before the cut");
    },
  },
  {
    name: "checkout risk retention: a batch deletes at most `limit` signals, also of a checkout recorded under several",
    run: async (t, run) => {
      await run(seedCheckouts([1, 2]));
      await run(record(1, [1, 2, 3], 1));
      await run(record(2, [1, 2], 2));
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(50), 1))), 1, "one signal of the first checkout's three");
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(50), 3))), 3, "three of the four left");
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(50), 3))), 1, "the last one");
      t.equal(await run(risk((r) => r.deleteRecordedBefore(at(50), 3))), 0, "none left");
    },
  },
  {
    name: "checkout risk retention: locks last taken before the cut are deleted; a lock taken again since stays",
    run: async (t, run) => {
      await run(risk((r) => r.lockSignals([kitSignal(1), kitSignal(2)], at(1))));
      await run(risk((r) => r.lockSignals([kitSignal(2)], at(100))));
      t.equal(await run(risk((r) => r.deleteLocksBefore(at(50), 10))), 1, "only signal 1's lock is older than the cut");
      t.equal(await run(risk((r) => r.deleteLocksBefore(at(50), 10))), 0, "it is gone");
      t.equal(await run(risk((r) => r.deleteLocksBefore(at(200), 10))), 1, "signal 2's lock, taken again at 100, was kept until then");
    },
  },
  {
    name: "checkout risk: checkouts under one signal are counted one after the other under its lock: ten at once under a bound of three record three, whatever order they name their signals in",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const ns = Array.from({ length: 10 }, (_, i) => i + 1);
      await run(seedCheckouts(ns));
      const bound = 3;
      // What checkout does in its transaction (core/commerce/CheckoutRisk.ts, PlaceOrder.ts): lock, count, record when under the bound.
      const checkout = (n: number) =>
        Effect.flatMap(Transactions, (tx) =>
          tx.run(
            Effect.gen(function* () {
              const signals = (n % 2 === 0 ? [1, 2] : [2, 1]).map(kitSignal);
              const r = yield* CheckoutRiskRepository;
              yield* r.lockSignals(signals, at(n));
              const risks = yield* r.riskSince(signals, at(0), 10);
              if (risks.some((s) => s.unresolved + s.declines.length >= bound)) return false;
              yield* r.recordSignals(kitId.order(n), signals, at(n));
              return true;
            }),
          ),
        );
      // A lock that locks nothing then admits more than the bound.
      await run(warmUp(ns.length, Effect.flatMap(Transactions, (tx) => tx.run(risk((r) => r.riskSince([kitSignal(1)], at(0), 1))))));
      const admitted = await run(Effect.all(ns.map(checkout), { concurrency: "unbounded" }));
      t.equal(admitted.filter(Boolean).length, bound, "exactly the bound is admitted");
      t.same(
        await run(riskOf([1, 2], 0)),
        [
          { declines: [], unresolved: bound },
          { declines: [], unresolved: bound },
        ],
        "and recorded under each signal",
      );
    },
  },
];

/** Runs the checkout risk kit against the adapter `options.factory` makes. */
export const checkoutRiskRepositorySuite = (options: SuiteOptions<CheckoutRiskKitPorts>): Promise<unknown> => runCases(options, checkoutRiskCases);
