/**
 * Substitutions (spec: should-have; docs/decisions.md: proposed on an authorized or accepted order
 * before pickup): the customer's decision is part of the same window. Once the meal is picked up,
 * delivered, or the order rejected, a proposed substitution can no longer be decided (409
 * substitution_not_allowed) and stays proposed: the record never says the customer agreed to
 * what was already supplied. Before, the decision was recorded whatever the order's state.
 * The core refuses a reason longer than 500 characters (422), as for every other reason of the
 * module (the route's schema already did); it cut it silently.
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { decideSubstitution } from "../../core/delivery/DecideSubstitution.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { proposeSubstitution } from "../../core/delivery/ProposeSubstitution.js";
import { rejectOrder } from "../../core/delivery/AcceptOrder.js";
import { acceptedOrder, advanceDelivery, authorizedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, sampleMenu, user } from "./support.js";

t.test("a substitution is decided only before pickup: after pickup, delivery or rejection the decision is 409 and the substitution stays proposed", (t) =>
  forEachDeliveryDialect(t, "substitution decided before pickup", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const opened = await openRestaurant(rt, "owner-sub");
    const menu = await rt.run(publishMenu(user("owner-sub"), opened.restaurant.id, [...sampleMenu, { name: "Quattro Formaggi", priceMinor: 1400 }]));
    const fixture = { ...opened, menu };
    const replacement = menu.items.find((i) => i.name === "Quattro Formaggi")!;
    const propose = async (orderId: string, lineNo: number) =>
      rt.run(proposeSubstitution(user("owner-sub"), orderId as never, { lineNo, replacementItemId: replacement.id, reason: "out of mozzarella" }));
    const [courier] = await onlineCouriers(rt, 1);

    // Proposed while the delivery was assigned; the courier picks up before the customer decides.
    const { placed, accepted } = await acceptedOrder(rt, "customer-1", fixture);
    const offer = (await rt.run(listMyOffers(courier!.principal)))[0]!;
    await rt.run(acceptOffer(courier!.principal, offer.id));
    const proposed = await propose(placed.order.id, placed.lines[0]!.lineNo);
    await advanceDelivery(rt, courier!.principal, accepted.delivery.id, { transitionId: "p", status: "picked_up" });
    t.match(await rt.attempt(decideSubstitution(user("customer-1"), placed.order.id, proposed.id, "accepted")), { ok: false, error: { code: "substitution_not_allowed" } }, "after pickup");
    await advanceDelivery(rt, courier!.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    t.match(await rt.attempt(decideSubstitution(user("customer-1"), placed.order.id, proposed.id, "refused")), { ok: false, error: { code: "substitution_not_allowed" } }, "after delivery");
    t.match(await db.db.selectFrom("dl_substitutions").select("status").where("id", "=", proposed.id).executeTakeFirstOrThrow(), { status: "proposed" }, "still proposed");

    // Proposed on an authorized order that the restaurant then rejects.
    const rejected = await authorizedOrder(rt, "customer-2", fixture);
    const onRejected = await propose(rejected.order.id, rejected.lines[0]!.lineNo);
    await rt.run(rejectOrder(user("owner-sub"), rejected.order.id, { reason: "closing early" }));
    t.match(await rt.attempt(decideSubstitution(user("customer-2"), rejected.order.id, onRejected.id, "accepted")), { ok: false, error: { code: "substitution_not_allowed" } }, "after rejection");

    // Before pickup the decision still runs.
    const open = await acceptedOrder(rt, "customer-3", fixture);
    const onOpen = await propose(open.placed.order.id, open.placed.lines[0]!.lineNo);
    t.match(await rt.run(decideSubstitution(user("customer-3"), open.placed.order.id, onOpen.id, "accepted")), { status: "accepted" }, "before pickup");

    // A reason past 500 characters is refused, not cut.
    const long = await authorizedOrder(rt, "customer-4", fixture);
    t.match(
      await rt.attempt(proposeSubstitution(user("owner-sub"), long.order.id, { lineNo: long.lines[0]!.lineNo, replacementItemId: replacement.id, reason: "x".repeat(501) })),
      { ok: false, error: { code: "validation_failed", errors: [{ path: "reason" }] } },
      "a reason of 501 characters",
    );
  }),
);
