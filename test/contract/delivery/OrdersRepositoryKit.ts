/**
 * Contract kit for OrdersRepository: quotes read back as written; an order is written with its
 * lines and workflow once per quote ("exists" the second time, nothing duplicated); the
 * workflow advances only from the expected version (a stale writer loses); restaurants list
 * their workflows by status in keyset pages; orders and lines are immutable; a quote's placement
 * is started once and leaves `authorizing` once, to `placed` or `released`; the drop-off of a
 * finished order and its quote is redacted once (3 decimals, address masked), an open one's kept.
 */
import { Effect, Exit } from "effect";
import { OrderId } from "../../../core/delivery/model/Order.js";
import { QuoteId } from "../../../core/delivery/model/Ids.js";
import { redactedDropoffAddress } from "../../../core/delivery/model/PriceSnapshot.js";
import { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, exitOf, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedOrder, seedRestaurant, uid } from "./fixtures.js";

/** The ports this kit needs (restaurants are written through their repository). */
export type OrdersRepositoryKitPorts = OrdersRepository | RestaurantsRepository;

const orders = <A>(f: (r: OrdersRepository) => Effect.Effect<A>) => Effect.flatMap(OrdersRepository, f);

/** The cases of the orders repository kit. */
export const deliveryOrdersRepositoryCases: ReadonlyArray<KitCase<OrdersRepositoryKitPorts>> = [
  {
    name: "orders: a quote and an order with its lines and workflow read back as written; unknown ids are null",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const order = await run(seedOrder(restaurant, 1));
      const quote = await run(orders((o) => o.findQuote(order.quoteId)));
      t.equal(quote?.id, order.quoteId);
      t.equal(quote?.totalMinor, order.totalMinor);
      t.same(await run(orders((o) => o.findOrder(order.id))), order, "the snapshot as written");
      t.same((await run(orders((o) => o.findOrderByQuote(order.quoteId))))?.id, order.id);
      t.same((await run(orders((o) => o.orderLines(order.id)))).map((l) => [l.lineNo, l.name, l.lineTotalMinor]), [[1, "Margherita", 900]]);
      t.equal((await run(orders((o) => o.findWorkflow(order.id))))?.status, "authorized");
      t.equal(await run(orders((o) => o.findOrder(uid("ord", 99)))), null);
      t.equal(await run(orders((o) => o.findQuote(uid("quo", 99)))), null);
      t.equal(await run(orders((o) => o.findWorkflow(uid("ord", 99)))), null);
    },
  },
  {
    name: "orders: one order per quote — a second insert for the same quote answers exists and writes nothing",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const order = await run(seedOrder(restaurant, 1));
      const lines = await run(orders((o) => o.orderLines(order.id)));
      const workflow = await run(orders((o) => o.findWorkflow(order.id)));
      const twin = { ...order, id: OrderId.make(uid("ord", 50)) };
      const answer = await run(orders((o) => o.insertOrder(twin, lines.map((l) => ({ ...l, orderId: twin.id })), { ...workflow!, orderId: twin.id })));
      t.equal(answer, "exists");
      t.equal(await run(orders((o) => o.findOrder(twin.id))), null, "no second order");
      t.same(await run(orders((o) => o.orderLines(twin.id))), [], "no second set of lines");
    },
  },
  {
    name: "orders: a quote's placement is started once, as first written, and leaves authorizing once (placed or released)",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const order = await run(seedOrder(restaurant, 1));
      const quoteId = QuoteId.make(order.quoteId);
      const first = { quoteId, merchantId: restaurant.merchantId, paymentMethod: "pm_first", state: "authorizing" as const, startedAt: at(0), updatedAt: at(0), releaseConfirmedAt: null };
      t.same(await run(orders((o) => o.startPlacement(first))), { placement: first, started: true });
      const again = await run(orders((o) => o.startPlacement({ ...first, paymentMethod: "pm_second", startedAt: at(5), updatedAt: at(5) })));
      t.same(again, { placement: first, started: false }, "the second start answers the placement as first written");
      t.equal(await run(orders((o) => o.finishPlacement(quoteId, "placed", at(10)))), true);
      t.equal(await run(orders((o) => o.finishPlacement(quoteId, "released", at(20)))), false, "a placement leaves authorizing once");
      t.same(await run(orders((o) => o.findPlacement(quoteId))), { ...first, state: "placed", updatedAt: at(10) });
      t.equal(await run(orders((o) => o.findPlacement(QuoteId.make(uid("quo", 99))))), null);
    },
  },
  {
    name: "orders: a released placement's release is confirmed once, and then its token is redacted; a placed one's only once its payment is final",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const order = await run(seedOrder(restaurant, 1));
      const quoteId = QuoteId.make(order.quoteId);
      const placement = { quoteId, merchantId: restaurant.merchantId, paymentMethod: "pm_first", state: "authorizing" as const, startedAt: at(0), updatedAt: at(0), releaseConfirmedAt: null };
      await run(orders((o) => o.startPlacement(placement)));
      t.equal(await run(orders((o) => o.confirmRelease(quoteId, at(5)))), false, "not released: nothing to confirm");
      await run(orders((o) => o.finishPlacement(quoteId, "released", at(10))));
      t.equal(await run(orders((o) => o.redactSettledPaymentMethods())), 0, "an unconfirmed release keeps its token");
      t.equal(await run(orders((o) => o.confirmRelease(quoteId, at(20)))), true);
      t.equal(await run(orders((o) => o.confirmRelease(quoteId, at(30)))), false, "confirmed once");
      t.equal(await run(orders((o) => o.redactSettledPaymentMethods())), 1);
      t.same(await run(orders((o) => o.findPlacement(quoteId))), { ...placement, state: "released", updatedAt: at(10), releaseConfirmedAt: at(20), paymentMethod: "[REDACTED]" });
      t.equal(await run(orders((o) => o.redactSettledPaymentMethods())), 0, "once");
    },
  },
  {
    name: "orders: the workflow advances only from the expected version",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const order = await run(seedOrder(restaurant, 1));
      const workflow = (await run(orders((o) => o.findWorkflow(order.id))))!;
      const rejected = { ...workflow, status: "rejected" as const, paymentState: "void_pending" as const, reason: "closing early", version: workflow.version + 1, updatedAt: at(1000) };
      t.equal(await run(orders((o) => o.updateWorkflow(rejected, workflow.version))), true);
      const stale = { ...workflow, status: "cancelled" as const, paymentState: "void_pending" as const, reason: "late", version: workflow.version + 1, updatedAt: at(2000) };
      t.equal(await run(orders((o) => o.updateWorkflow(stale, workflow.version))), false, "a writer holding the old version loses");
      const stored = await run(orders((o) => o.findWorkflow(order.id)));
      t.same([stored?.status, stored?.version, stored?.reason], ["rejected", workflow.version + 1, "closing early"]);
    },
  },
  {
    name: "orders: a restaurant's workflows by status, oldest first, in keyset pages, none of another restaurant's",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const other = await run(seedRestaurant(2));
      const mine: Array<Effect.Effect.Success<ReturnType<typeof seedOrder>>> = [];
      for (let n = 1; n <= 3; n++) mine.push(await run(seedOrder(restaurant, n)));
      await run(seedOrder(other, 4));
      const first = await run(orders((o) => o.listWorkflows({ restaurantId: restaurant.id, statuses: ["authorized"], afterOrderId: null, limit: 2 })));
      t.same(first.map((w) => w.orderId), [mine[0]!.id, mine[1]!.id]);
      const second = await run(orders((o) => o.listWorkflows({ restaurantId: restaurant.id, statuses: ["authorized"], afterOrderId: mine[1]!.id, limit: 2 })));
      t.same(second.map((w) => w.orderId), [mine[2]!.id]);
      t.same(await run(orders((o) => o.listWorkflows({ restaurantId: restaurant.id, statuses: ["accepted"], afterOrderId: null, limit: 10 }))), [], "filtered by status");
    },
  },
  {
    name: "orders: the drop-off of an order finished before the cutoff and of its quote is redacted once (3 decimals, address masked); an open order keeps its own",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const finished = await run(seedOrder(restaurant, 1));
      const open = await run(seedOrder(restaurant, 2));
      const workflow = (await run(orders((o) => o.findWorkflow(finished.id))))!;
      const rejected = { ...workflow, status: "rejected" as const, paymentState: "void_pending" as const, reason: "closing early", version: workflow.version + 1, updatedAt: at(1000) };
      t.equal(await run(orders((o) => o.updateWorkflow(rejected, workflow.version))), true);
      t.equal(await run(orders((o) => o.redactDropoffsFinishedBefore(at(1000)))), 0, "nothing finished before the cutoff");
      t.equal(await run(orders((o) => o.redactDropoffsFinishedBefore(at(2000)))), 2, "the order and its quote");
      const redacted = { dropoffLat: Math.round(finished.dropoffLat * 1000) / 1000, dropoffLng: Math.round(finished.dropoffLng * 1000) / 1000, dropoffAddress: redactedDropoffAddress };
      t.same(await run(orders((o) => o.findOrder(finished.id))), { ...finished, ...redacted }, "the snapshot otherwise as written");
      const dropoffOf = (quote: { readonly dropoffLat: number; readonly dropoffLng: number; readonly dropoffAddress: string } | null) =>
        quote === null ? null : { dropoffLat: quote.dropoffLat, dropoffLng: quote.dropoffLng, dropoffAddress: quote.dropoffAddress };
      t.same(dropoffOf(await run(orders((o) => o.findQuote(finished.quoteId)))), redacted, "its quote");
      t.same(await run(orders((o) => o.findOrder(open.id))), open, "the open order keeps its drop-off");
      t.same(dropoffOf(await run(orders((o) => o.findQuote(open.quoteId)))), dropoffOf(open), "and so does its quote");
      t.equal(await run(orders((o) => o.redactDropoffsFinishedBefore(at(2000)))), 0, "once");
    },
  },
  {
    name: "orders: every operator replay of a dead payment step is recorded, the same job again and a quote's release included",
    run: async (t, run) => {
      const replay = (n: number, step: "capture" | "release", ids: { orderId: string | null; quoteId: string | null }) =>
        Effect.flatMap(OrdersRepository, (o) =>
          o.recordPaymentReplay({ id: uid("prp", n), jobId: uid("job", step === "capture" ? 1 : 2), step, ...ids, actorId: uid("usr", 1), reason: "provider outage over", at: at(n * 1000) }),
        );
      t.ok(Exit.isSuccess(await run(exitOf(replay(1, "capture", { orderId: uid("ord", 1), quoteId: null })))), "an order's capture");
      t.ok(Exit.isSuccess(await run(exitOf(replay(2, "capture", { orderId: uid("ord", 1), quoteId: null })))), "the same job replayed again is another record");
      t.ok(Exit.isSuccess(await run(exitOf(replay(3, "release", { orderId: null, quoteId: uid("quo", 1) })))), "a quote's authorization release");
    },
  },
];

/** Runs the orders repository kit. */
export const deliveryOrdersRepositorySuite = (options: SuiteOptions<OrdersRepositoryKitPorts>): Promise<unknown> => runCases(options, deliveryOrdersRepositoryCases);

