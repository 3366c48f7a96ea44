/**
 * Contract kit for the e-commerce OrdersRepository: a checkout is claimed once per scope and key
 * (a repeat answers the first claim and whether its payload is the same; another scope is its
 * own; racing claims on separate connections make one winner); an order and its lines read back
 * as written (sealed fields read back plain); an order moves only from the statuses the caller
 * names, once, its version rising; a customer's orders come newest first by a keyset cursor, and
 * only theirs; an event is received once per consumer; an order has at most one fulfillment task;
 * a shipment is delivered once and leaves the in-transit list; a return moves only from the
 * status the caller read; a payment record is saved only from the status its writer read; an order's promotion uses
 * are given back once; an order's timeline pages walk its entries once in id order, and a page
 * without the warehouse's entries is full (filtered before the limit); notes are read by id.
 */
import { Effect } from "effect";
import { OrderNoteId, TimelineEntryId } from "../../../core/commerce/model/Ids.js";
import type { OrderNote } from "../../../core/commerce/model/OrderNote.js";
import type { OrderPayment } from "../../../core/commerce/model/OrderPayment.js";
import type { Promotion } from "../../../core/commerce/model/Promotion.js";
import type { Return } from "../../../core/commerce/model/Return.js";
import type { Shipment } from "../../../core/commerce/model/Shipment.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { OrdersRepository } from "../../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, lineOf, orderRecord, seedStore, uid } from "./fixtures.js";

/** The ports this kit needs. */
export type OrdersKitPorts = OrdersRepository | StoresRepository | CatalogRepository;

const orders = <A>(f: (r: OrdersRepository) => Effect.Effect<A>) => Effect.flatMap(OrdersRepository, f);


const claim = (scope: string, key: string, orderN: number, payload: string) =>
  orders((r) => r.claimCheckout({ storeId: kitId.store(1), scope, idempotencyKey: key, orderId: kitId.order(orderN), createdAt: at(orderN) }, payload));

const shipment = (n: number, orderN: number, tracking: string): Shipment => ({
  id: kitId.ship(n),
  storeId: kitId.store(1),
  orderId: kitId.order(orderN),
  locationId: kitId.loc(1),
  status: "dispatched",
  carrier: "DHL",
  trackingNumber: tracking,
  amountMinor: 100,
  dispatchedAt: at(n),
  createdAt: at(n),
});

const returnOf = (n: number, orderN: number): Return => ({
  id: kitId.ret(n),
  storeId: kitId.store(1),
  orderId: kitId.order(orderN),
  status: "authorized",
  reason: "too small",
  lines: [{ orderLineId: kitId.line(orderN * 10 + 1), quantity: 1 }],
  refundMinor: 100,
  refundAttempt: 1,
  version: 1,
  createdAt: at(n),
  updatedAt: at(n),
});

/** The cases of the orders kit. */
export const commerceOrdersCases: ReadonlyArray<KitCase<OrdersKitPorts>> = [
  {
    name: "orders: a checkout is claimed once per scope and key; a repeat answers the first claim and whether its payload is the same",
    run: async (t, run) => {
      await run(seedStore(1));
      t.same(await run(claim("user:a", "k1", 1, "payload-1")), { claimed: true });
      const again = await run(claim("user:a", "k1", 2, "payload-1"));
      t.same([again.claimed, again.claimed ? null : again.existing.orderId, again.claimed ? null : again.samePayload], [false, kitId.order(1), true], "the same request answers the first order");
      const other = await run(claim("user:a", "k1", 3, "payload-2"));
      t.same([other.claimed, other.claimed ? null : other.samePayload], [false, false], "another payload under the key is told apart");
      t.same(await run(claim("user:b", "k1", 4, "payload-1")), { claimed: true }, "a key is scoped to its account");
    },
  },
  {
    name: "orders: ten concurrent claims of one key: exactly one wins and the others answer its order",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(seedStore(1));
      await run(warmUp(10, orders((r) => r.findOrder(kitId.order(99)))));
      const results = await run(Effect.all(Array.from({ length: 10 }, (_, i) => claim("user:a", "race", i + 1, "same")), { concurrency: "unbounded" }));
      const winners = results.filter((r) => r.claimed);
      t.equal(winners.length, 1);
      t.equal(new Set(results.flatMap((r) => (r.claimed ? [] : [r.existing.orderId]))).size, 1, "every loser answers the one winning order");
    },
  },
  {
    name: "orders: an order and its lines read back as written, sealed fields plain",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [lineOf(1, 2), lineOf(1, 1)])));
      t.same(await run(orders((r) => r.findOrder(kitId.order(1)))), orderRecord(1));
      t.same((await run(orders((r) => r.linesOf(kitId.order(1))))).map((l) => l.id), [kitId.line(11), kitId.line(12)], "lines by id");
      t.equal(await run(orders((r) => r.findOrder(kitId.order(9)))), null);
    },
  },
  {
    name: "orders: an order moves only from the statuses named, once, its version rising",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [])));
      const confirmed = await run(orders((r) => r.transitionOrder(kitId.order(1), ["pending", "payment_pending"], "confirmed", at(5), { paymentIntentRef: "pay_1" })));
      t.same([confirmed?.status, confirmed?.version, confirmed?.paymentIntentRef], ["confirmed", 2, "pay_1"]);
      t.equal(await run(orders((r) => r.transitionOrder(kitId.order(1), ["pending", "payment_pending"], "failed", at(6)))), null, "a second mover from pending finds nothing");
      t.equal((await run(orders((r) => r.findOrder(kitId.order(1)))))?.status, "confirmed");
    },
  },
  {
    name: "orders: a payment record is saved only from the status its writer read",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [])));
      const record: OrderPayment = {
        orderId: kitId.order(1),
        storeId: kitId.store(1),
        merchantId: "m_1",
        paymentId: null,
        idempotencyKey: `order:${kitId.order(1)}/authorize`,
        paymentMethod: "pm_card_visa",
        status: "authorizing",
        amountMinor: 500,
        capturedMinor: 0,
        refundedMinor: 0,
        updatedAt: at(1),
      };
      await run(orders((r) => r.insertPayment(record)));
      const authorized: OrderPayment = { ...record, status: "authorized", paymentId: "pay_1", updatedAt: at(2) };
      t.equal(await run(orders((r) => r.updatePayment(authorized, "authorizing"))), true, "saved from the status read");
      t.equal(await run(orders((r) => r.updatePayment({ ...record, status: "declined", updatedAt: at(3) }, "authorizing"))), false, "an old copy moves nothing");
      t.same(await run(orders((r) => r.findPayment(kitId.order(1)))), authorized);
    },
  },
  {
    name: "orders: an order's promotion uses are given back once",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [])));
      const promotion: Promotion = {
        id: kitId.promo(1),
        storeId: kitId.store(1),
        code: "ONCE",
        kind: "percentage",
        value: 10,
        automatic: false,
        startsAt: at(0),
        endsAt: null,
        usageLimit: 1,
        usageCount: 0,
        createdAt: at(0),
      };
      const catalog = <A>(f: (r: CatalogRepository) => Effect.Effect<A>) => Effect.flatMap(CatalogRepository, f);
      await run(catalog((r) => r.insertPromotion(promotion)));
      t.equal(await run(catalog((r) => r.usePromotion(kitId.promo(1)))), true);
      await run(catalog((r) => r.recordPromotionUses({ storeId: kitId.store(1), orderId: kitId.order(1), promotionIds: [kitId.promo(1)] })));
      t.equal(await run(catalog((r) => r.usePromotion(kitId.promo(1)))), false, "used up");
      t.equal(await run(catalog((r) => r.releasePromotionUses(kitId.order(1), at(2)))), 1, "the order's use is given back");
      t.equal(await run(catalog((r) => r.releasePromotionUses(kitId.order(1), at(3)))), 0, "once");
      t.same((await run(catalog((r) => r.promotionsFor(kitId.store(1), ["ONCE"])))).map((p) => p.usageCount), [0]);
      t.equal(await run(catalog((r) => r.usePromotion(kitId.promo(1)))), true, "the code serves again");
    },
  },
  {
    name: "orders: ten concurrent moves out of pending: exactly one succeeds",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [])));
      await run(warmUp(10, orders((r) => r.findOrder(kitId.order(99)))));
      const results = await run(
        Effect.all(
          Array.from({ length: 10 }, (_, i) => orders((r) => r.transitionOrder(kitId.order(1), ["pending"], i % 2 === 0 ? "confirmed" : "expired", at(10 + i)))),
          { concurrency: "unbounded" },
        ),
      );
      t.equal(results.filter((r) => r !== null).length, 1);
      t.equal((await run(orders((r) => r.findOrder(kitId.order(1)))))?.version, 2);
    },
  },
  {
    name: "orders: a customer's orders come newest first by a keyset cursor, and only theirs",
    run: async (t, run) => {
      await run(seedStore(1));
      for (const n of [1, 2, 3]) await run(orders((r) => r.insertOrder(orderRecord(n, uid("user", 2)), [])));
      await run(orders((r) => r.insertOrder(orderRecord(4, uid("user", 3)), [])));
      await run(orders((r) => r.insertOrder(orderRecord(5, null), [])));
      const page = (beforeId: string | null) => Effect.map(orders((r) => r.ordersOfCustomer(uid("user", 2), beforeId, 2)), (os) => os.map((o) => o.id));
      t.same(await run(page(null)), [kitId.order(3), kitId.order(2)]);
      t.same(await run(page(kitId.order(2))), [kitId.order(1)], "before the cursor id");
    },
  },
  {
    name: "orders: an event is received once per consumer; an order has at most one fulfillment task",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [])));
      t.ok(await run(orders((r) => r.receiveEvent("mail", "evt-1", at(1)))));
      t.notOk(await run(orders((r) => r.receiveEvent("mail", "evt-1", at(2)))), "a redelivery is told apart");
      t.ok(await run(orders((r) => r.receiveEvent("tasks", "evt-1", at(2)))), "another consumer receives it too");
      const task = (n: number) => ({ id: kitId.task(n), storeId: kitId.store(1), orderId: kitId.order(1), status: "open" as const, assigneeId: null, assignedAt: null, createdAt: at(n) });
      const list = (storeId: string, status: "open" | "done") => orders((r) => r.fulfillmentTasks(storeId, { status, afterId: null, limit: 10 }));
      t.ok(await run(orders((r) => r.insertFulfillmentTask(task(1)))));
      t.notOk(await run(orders((r) => r.insertFulfillmentTask(task(2)))), "one task per order");
      t.same((await run(list(kitId.store(1), "open"))).map((x) => x.id), [kitId.task(1)]);
      await run(orders((r) => r.completeFulfillmentTask(kitId.order(1))));
      t.same((await run(list(kitId.store(1), "open"))).length, 0);
      t.same((await run(list(kitId.store(2), "done"))).length, 0, "tasks are answered per store");
    },
  },
  {
    name: "orders: a fulfillment task's assignee moves only from the one read and while open; a page for an operator holds theirs and the unassigned",
    run: async (t, run) => {
      await run(seedStore(1));
      for (const n of [1, 2, 3]) {
        await run(orders((r) => r.insertOrder(orderRecord(n), [])));
        await run(orders((r) => r.insertFulfillmentTask({ id: kitId.task(n), storeId: kitId.store(1), orderId: kitId.order(n), status: "open", assigneeId: null, assignedAt: null, createdAt: at(n) })));
      }
      const ada = uid("user", 7);
      const bob = uid("user", 8);
      // What a task holds, as plain values: its id, assignee and when it was assigned.
      const held = (x: { id: string; assigneeId: string | null; assignedAt: Date | null } | null) =>
        x === null ? null : { id: x.id, assigneeId: x.assigneeId, assignedAt: x.assignedAt?.toISOString() ?? null };
      const move = (n: number, from: string | null, to: string | null) => Effect.map(orders((r) => r.moveFulfillmentTaskAssignee(kitId.task(n), from, to, at(5))), held);
      t.same(await run(move(1, null, ada)), { id: kitId.task(1), assigneeId: ada, assignedAt: at(5).toISOString() });
      t.equal(await run(move(1, null, bob)), null, "a second take from unassigned matches nothing");
      t.equal(await run(move(1, bob, null)), null, "nor a move from an assignee it no longer has");
      t.same(await run(move(2, null, bob)), { id: kitId.task(2), assigneeId: bob, assignedAt: at(5).toISOString() });
      const page = (availableTo: string | undefined, afterId: string | null, limit: number) =>
        Effect.map(orders((r) => r.fulfillmentTasks(kitId.store(1), { status: "open", ...(availableTo === undefined ? {} : { availableTo }), afterId, limit })), (ts) => ts.map((x) => x.id));
      t.same(await run(page(ada, null, 10)), [kitId.task(1), kitId.task(3)], "ada's and the unassigned, not bob's");
      t.same(await run(page(ada, null, 1)), [kitId.task(1)]);
      t.same(await run(page(ada, kitId.task(1), 10)), [kitId.task(3)], "after the cursor id");
      t.same(await run(page(undefined, null, 10)), [kitId.task(1), kitId.task(2), kitId.task(3)]);
      const assigned = (userId: string) => Effect.map(orders((r) => r.fulfillmentTasks(kitId.store(1), { status: "open", assignedTo: userId, afterId: null, limit: 10 })), (ts) => ts.map((x) => x.id));
      t.same(await run(assigned(ada)), [kitId.task(1)], "assignedTo: only the tasks that user holds, not the unassigned");
      t.same(await run(assigned(bob)), [kitId.task(2)]);
      t.same(await run(move(1, ada, null)), { id: kitId.task(1), assigneeId: null, assignedAt: null }, "a release clears the assignee and its time");
      await run(orders((r) => r.completeFulfillmentTask(kitId.order(3))));
      t.equal(await run(move(3, null, ada)), null, "a done task is not taken");
      t.same(await run(Effect.map(orders((r) => r.findFulfillmentTask(kitId.task(2))), held)), { id: kitId.task(2), assigneeId: bob, assignedAt: at(5).toISOString() });
      t.same(await run(Effect.map(orders((r) => r.fulfillmentTaskOfOrder(kitId.order(2))), held)), { id: kitId.task(2), assigneeId: bob, assignedAt: at(5).toISOString() });
      t.equal(await run(orders((r) => r.findFulfillmentTask(kitId.task(9)))), null);
    },
  },
  {
    name: "orders: a shipment is delivered once and leaves the in-transit list; a return moves only from the status read",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [lineOf(1, 1)])));
      await run(orders((r) => r.insertShipment(shipment(1, 1, "JD1"))));
      t.ok(await run(orders((r) => r.insertShipment(shipment(2, 1, "JD2")))));
      t.notOk(await run(orders((r) => r.insertShipment(shipment(3, 1, "JD2")))), "a carrier's tracking number names one shipment");
      t.equal((await run(orders((r) => r.findShipmentByTracking("DHL", "JD2"))))?.id, kitId.ship(2));
      t.equal(await run(orders((r) => r.findShipmentByTracking("UPS", "JD2"))), null, "tracking numbers are per carrier");
      t.same((await run(orders((r) => r.shipmentsInTransit(null, 1)))).map((s) => s.id), [kitId.ship(1)], "in transit by id, at most the limit");
      t.ok(await run(orders((r) => r.markShipmentDelivered(kitId.ship(1)))));
      t.notOk(await run(orders((r) => r.markShipmentDelivered(kitId.ship(1)))), "delivered once");
      t.same((await run(orders((r) => r.shipmentsInTransit(null, 10)))).map((s) => s.id), [kitId.ship(2)]);
      t.same((await run(orders((r) => r.shipmentsInTransit(kitId.ship(2), 10)))).length, 0, "after the cursor id");

      await run(orders((r) => r.insertReturn(returnOf(1, 1))));
      const received = await run(orders((r) => r.transitionReturn(kitId.ret(1), "authorized", "received", at(5))));
      t.same([received?.status, received?.version], ["received", 2]);
      t.equal(await run(orders((r) => r.transitionReturn(kitId.ret(1), "authorized", "received", at(6)))), null, "a stale status moves nothing");
      t.same((await run(orders((r) => r.returnsOf(kitId.order(1))))).map((x) => x.status), ["received"]);
    },
  },
  {
    name: "orders: a refused refund moves its return to refund_failed once per attempt; asking again moves it back with the next attempt, once",
    run: async (t, run) => {
      await run(seedStore(1));
      await run(orders((r) => r.insertOrder(orderRecord(1), [lineOf(1, 1)])));
      await run(orders((r) => r.insertReturn({ ...returnOf(1, 1), status: "refund_requested" })));
      t.equal(await run(orders((r) => r.failReturnRefund(kitId.ret(1), 2, at(5)))), null, "another attempt's refusal moves nothing");
      const failed = await run(orders((r) => r.failReturnRefund(kitId.ret(1), 1, at(5))));
      t.same([failed?.status, failed?.refundAttempt], ["refund_failed", 1]);
      t.equal(await run(orders((r) => r.failReturnRefund(kitId.ret(1), 1, at(6)))), null, "refused once");
      const again = await run(orders((r) => r.requestReturnRefundAgain(kitId.ret(1), 1, at(7))));
      t.same([again?.status, again?.refundAttempt], ["refund_requested", 2]);
      t.equal(await run(orders((r) => r.requestReturnRefundAgain(kitId.ret(1), 1, at(8)))), null, "asked again once per refusal");
    },
  },
  {
    name: "orders: minimizing a guest order clears its notes and its returns' reasons; a customer's order keeps them",
    run: async (t, run) => {
      await run(seedStore(1));
      const note = (n: number, orderN: number): OrderNote => ({
        id: OrderNoteId.make(uid("note", n)),
        storeId: kitId.store(1),
        orderId: kitId.order(orderN),
        body: `note ${n}`,
        createdAt: at(1),
        clearedAt: null,
      });
      for (const [n, customer] of [[1, null], [2, uid("user", 2)]] as const) {
        await run(orders((r) => r.insertOrder(orderRecord(n, customer), [lineOf(n, 1)])));
        await run(orders((r) => r.insertNote(note(n, n))));
        await run(orders((r) => r.insertReturn(returnOf(n, n))));
        await run(orders((r) => r.transitionOrder(kitId.order(n), ["pending"], "failed", at(2))));
      }
      t.same((await run(orders((r) => r.notesOf(kitId.order(1))))).map((x) => x.body), ["note 1"], "a note reads back");
      t.equal(await run(orders((r) => r.redactGuestOrders(at(10), 10, at(10)))), 1, "the guest order is minimized");
      const [cleared] = await run(orders((r) => r.notesOf(kitId.order(1))));
      t.same([cleared?.body, cleared?.clearedAt?.getTime()], [null, at(10).getTime()], "its note is cleared, and when");
      t.equal((await run(orders((r) => r.findReturn(kitId.ret(1)))))?.reason, null, "its return's reason is cleared");
      t.same((await run(orders((r) => r.notesOf(kitId.order(2))))).map((x) => x.body), ["note 2"], "a customer's note stays");
      t.equal((await run(orders((r) => r.findReturn(kitId.ret(2)))))?.reason, returnOf(2, 2).reason, "and the reason of a customer's return");
    },
  },
  {
    name: "orders: a timeline page walks the order's entries once in id order; without the warehouse's entries pages are still full",
    run: async (t, run) => {
      await run(seedStore(1));
      for (const n of [1, 2]) await run(orders((r) => r.insertOrder(orderRecord(n), [])));
      // Entry n of order 1 (every third a fulfillment entry), with order 2's entries between them.
      const kindOf = (n: number) => (n % 3 === 0 ? "fulfillment.assigned" : `order.step${n}`);
      for (let n = 1; n <= 12; n++) {
        for (const orderN of [1, 2]) {
          await run(
            orders((r) =>
              r.appendTimeline({
                id: TimelineEntryId.make(uid(`tl${orderN}`, n)),
                storeId: kitId.store(1),
                orderId: kitId.order(orderN),
                kind: kindOf(n),
                actorId: "kit",
                detail: { n },
                createdAt: at(n),
              }),
            ),
          );
        }
      }
      const walk = async (withFulfillment: boolean, limit: number) => {
        const pages: string[][] = [];
        let afterId: string | null = null;
        for (;;) {
          const page: ReadonlyArray<{ id: string; orderId: string }> = await run(orders((r) => r.timelinePage(kitId.order(1), { afterId, withFulfillment, limit })));
          t.ok(page.every((e) => e.orderId === kitId.order(1)), "only the order's entries");
          if (page.length === 0) break;
          pages.push(page.map((e) => e.id));
          afterId = page[page.length - 1]!.id;
        }
        return pages;
      };
      const every = Array.from({ length: 12 }, (_, i) => uid("tl1", i + 1));
      const staff = await walk(true, 5);
      t.same(staff.flat(), every, "every entry once, in id order");
      t.same(staff.map((p) => p.length), [5, 5, 2]);
      const shopper = await walk(false, 4);
      t.same(shopper.flat(), every.filter((_, i) => (i + 1) % 3 !== 0), "no fulfillment entry");
      t.same(shopper.map((p) => p.length), [4, 4], "pages are full: the filter comes before the limit");
      const note = (n: number): OrderNote => ({ id: OrderNoteId.make(uid("note", n)), storeId: kitId.store(1), orderId: kitId.order(1), body: `note ${n}`, createdAt: at(n), clearedAt: null });
      for (const n of [1, 2, 3]) await run(orders((r) => r.insertNote(note(n))));
      t.same((await run(orders((r) => r.notesNamed(kitId.order(1), [uid("note", 3), uid("note", 1)])))).map((x) => x.body).sort(), ["note 1", "note 3"], "notes are read by id");
      t.same(await run(orders((r) => r.notesNamed(kitId.order(2), [uid("note", 1)]))), [], "only the order's own");
      t.same(await run(orders((r) => r.notesNamed(kitId.order(1), []))), []);
      for (const n of [1, 2]) await run(orders((r) => r.insertReturn({ ...returnOf(n, 1), lines: [] })));
      t.same((await run(orders((r) => r.returnsNamed(kitId.order(1), [kitId.ret(2)])))).map((x) => x.id), [kitId.ret(2)], "returns are read by id");
      t.same(await run(orders((r) => r.returnsNamed(kitId.order(2), [kitId.ret(1)]))), [], "only the order's own");
      t.same(await run(orders((r) => r.returnsNamed(kitId.order(1), []))), []);
    },
  },
];

/** Runs the orders kit against the adapter `options.factory` makes. */
export const commerceOrdersRepositorySuite = (options: SuiteOptions<OrdersKitPorts>): Promise<unknown> => runCases(options, commerceOrdersCases);
