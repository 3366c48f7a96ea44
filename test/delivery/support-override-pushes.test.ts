/**
 * Spec, Background work: push notifications; Authentication 2: the courier's "active job", the
 * customer's "own orders". Support's overrides reach the people they change: the courier of a
 * delivery support cancelled is told not to pick it up (by push, for an app that is closed; an open
 * one hears it on courier:<id>, test/delivery/http-status-change-courier-channel.test.ts), and the customer of a refunded order is told the
 * money is on its way back (OrderRefunded goes to the restaurant's channel only). Pushes carry ids
 * and fixed texts only, never the dispatcher's reason.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { cancelOrderAsDispatcher } from "../../core/delivery/CancelAsDispatcher.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { deliveryPushConsumer } from "../../core/delivery/PushNotifications.js";
import { refundOrder } from "../../core/delivery/RefundOrder.js";
import type { Principal } from "../../ports/Principal.js";
import { at } from "../worker/fixtures.js";
import { acceptedOrder, advanceDelivery, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, pickedUpOrder, type DeliveryRuntime } from "./support.js";

const dispatcherId = "dispatcher-push";
const dispatchers = [{ userId: dispatcherId, region: { minLat: 52, minLng: 13, maxLat: 53, maxLng: 14 } }];
const recent = (): Principal => ({ kind: "user", userId: dispatcherId, authTime: Math.floor(Date.now() / 1000) });

const sendPushes = async (rt: DeliveryRuntime) => {
  await rt.run(
    Effect.gen(function* () {
      for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliveryPushConsumer], { workerId: "override-push-relay" })).claimed === 0) break;
    }),
  );
  await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "override-push", concurrency: 1 })));
};

t.test("the courier of a delivery support cancelled, and the customer of a refunded order, are told by push (fixed texts, no reason)", (t) =>
  forEachDeliveryDialect(t, "override pushes", async (t, db) => {
    const rt = deliveryRuntime(t, db, {}, dispatchers);
    const fixture = await openRestaurant(rt, "owner-op");
    const [courier] = await onlineCouriers(rt, 1, "op");
    const { placed, accepted } = await acceptedOrder(rt, "customer-op", fixture);
    const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === accepted.delivery.id)!;
    await rt.run(acceptOffer(courier!.principal, offer.id));
    await rt.run(cancelOrderAsDispatcher(recent(), placed.order.id, { reason: "secret kitchen trouble" }));

    const delivered = await pickedUpOrder(rt, "customer-op2", fixture);
    await advanceDelivery(rt, delivered.courier.principal, delivered.accepted.delivery.id, { transitionId: "d", status: "delivered" });
    await rt.run(refundOrder(recent(), delivered.placed.order.id, { amountMinor: 100, reason: "secret refund reason" }));
    await sendPushes(rt);

    const cancelledPushes = rt.pushes.filter((p) => p.kind === "delivery_cancelled");
    t.match(cancelledPushes, [{ recipientUserId: courier!.principal.kind === "user" ? courier!.principal.userId : "", data: { delivery_id: accepted.delivery.id } }], "the assigned courier is told");
    t.match(
      rt.pushes.filter((p) => p.kind === "order_refunded"),
      [{ recipientUserId: "customer-op2", data: { order_id: delivered.placed.order.id, amount_minor: "100" } }],
      "the customer is told of the refund",
    );
    t.notOk(JSON.stringify(rt.pushes).includes("secret"), "no reason in any push");
  }),
);
