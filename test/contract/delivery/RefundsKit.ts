/**
 * Contract kit for Refunds: a refund is read back as written; an order's refunds are listed by id
 * in keyset pages, its own only; `committedMinor` sums the refunds that did not fail; `settle`
 * records an outcome once (false when the refund is no longer pending); and a refund that would
 * take the order's refunds above its captured amount is refused (the rule of delivery migration 17
 * a custom adapter must hold too).
 */
import { Effect, Exit } from "effect";
import { RefundId } from "../../../core/delivery/model/Ids.js";
import type { Order } from "../../../core/delivery/model/Order.js";
import type { Refund } from "../../../core/delivery/model/Refund.js";
import type { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import { Refunds } from "../../../ports/delivery/Refunds.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, exitOf, runCases, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { seedDelivery, uid } from "./fixtures.js";

/** The ports this kit needs (orders and deliveries through their repositories). */
export type RefundsKitPorts = Refunds | OrdersRepository | DispatchRepository | RestaurantsRepository;

const refunds = <A>(f: (r: Refunds) => Effect.Effect<A>) => Effect.flatMap(Refunds, f);

/** Order `n` completed with its payment captured (the workflow moved as completion and capture move it). */
const seedCaptured = async (run: Run<RefundsKitPorts>, n: number): Promise<Order> => {
  const { order, delivery } = await run(seedDelivery(n));
  await run(
    Effect.gen(function* () {
      const orders = yield* OrdersRepository;
      let workflow = (yield* orders.findWorkflow(order.id))!;
      for (const step of [
        { status: "accepted" as const, deliveryId: delivery.id, prepTimeMinutes: 15 },
        { status: "completed" as const, paymentState: "capture_pending" as const },
        { paymentState: "captured" as const },
      ]) {
        const next = { ...workflow, ...step, version: workflow.version + 1 };
        yield* orders.updateWorkflow(next, workflow.version);
        workflow = next;
      }
    }),
  );
  return order;
};

/** Refund `n` of `order` for `amountMinor`, pending. */
const refund = (n: number, order: Order, amountMinor: number): Refund => ({
  id: RefundId.make(uid("rfd", n)),
  orderId: order.id,
  amountMinor,
  currency: order.currency,
  status: "pending",
  actorId: uid("usr", 900),
  reason: `refund ${n}`,
  failure: null,
  createdAt: at(n),
  settledAt: null,
});

/** The cases of the refunds kit. */
export const refundsCases: ReadonlyArray<KitCase<RefundsKitPorts>> = [
  {
    name: "refunds: read back as written; an order's refunds by id in keyset pages, its own only; committedMinor counts those that did not fail",
    run: async (t, run) => {
      const a = await seedCaptured(run, 1);
      const b = await seedCaptured(run, 2);
      const mine = [refund(1, a, 100), refund(2, a, 200), refund(3, a, 300)];
      for (const r of [mine[0]!, refund(4, b, 50), mine[1]!, mine[2]!]) await run(refunds((p) => p.insert(r)));
      t.same(await run(refunds((p) => p.find(mine[1]!.id))), mine[1]);
      t.equal(await run(refunds((p) => p.find(uid("rfd", 99)))), null);
      t.same(await run(refunds((p) => p.ofOrder({ orderId: a.id, afterId: null, limit: 2 }))), [mine[0], mine[1]], "the first page");
      t.same(await run(refunds((p) => p.ofOrder({ orderId: a.id, afterId: mine[1]!.id, limit: 2 }))), [mine[2]], "after the cursor");
      t.equal(await run(refunds((p) => p.committedMinor(a.id))), 600);
      t.ok(await run(refunds((p) => p.settle(mine[2]!.id, { status: "failed", failure: "refund_failed", at: at(10) }))));
      t.equal(await run(refunds((p) => p.committedMinor(a.id))), 300, "a failed refund no longer counts");
      t.equal(await run(refunds((p) => p.committedMinor(uid("ord", 9)))), 0, "an order without refunds");
    },
  },
  {
    name: "refunds: an outcome is recorded once; a refund above what is left of the captured amount is refused",
    run: async (t, run) => {
      const order = await seedCaptured(run, 1);
      const whole = refund(1, order, order.totalMinor);
      await run(refunds((p) => p.insert(whole)));
      t.ok(Exit.isFailure(await run(exitOf(refunds((p) => p.insert(refund(2, order, 1)))))), "nothing is left to refund");
      t.ok(await run(refunds((p) => p.settle(whole.id, { status: "refunded", failure: null, at: at(5) }))));
      t.notOk(await run(refunds((p) => p.settle(whole.id, { status: "failed", failure: "late", at: at(6) }))), "settled once");
      t.same(await run(refunds((p) => p.find(whole.id))), { ...whole, status: "refunded", settledAt: at(5) });
    },
  },
];

/** Runs the refunds kit. */
export const refundsSuite = (options: SuiteOptions<RefundsKitPorts>): Promise<unknown> => runCases(options, refundsCases);
