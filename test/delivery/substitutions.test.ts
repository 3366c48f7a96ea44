/**
 * Substitutions (spec: should-have): the restaurant proposes to replace an order line with another
 * available item before pickup; the customer accepts or refuses once; the line keeps its
 * authorized price (never charged more, never silently); other restaurants and customers get 404
 * — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { deliveryPushConsumer } from "../../core/delivery/PushNotifications.js";
import { at } from "../worker/fixtures.js";
import { decideSubstitution } from "../../core/delivery/DecideSubstitution.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { listSubstitutions } from "../../core/delivery/ListSubstitutions.js";
import { proposeSubstitution } from "../../core/delivery/ProposeSubstitution.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, sampleMenu, user, advanceDelivery } from "./support.js";

t.test("a restaurant proposes a substitution before pickup; the customer decides once; the authorized price holds", (t) =>
  forEachDeliveryDialect(t, "substitutions", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const opened = await openRestaurant(rt, "owner-sub");
    // A new menu version adds a pricier pizza: the replacement.
    const menu = await rt.run(publishMenu(user("owner-sub"), opened.restaurant.id, [...sampleMenu, { name: "Quattro Formaggi", priceMinor: 1400 }]));
    const fixture = { ...opened, menu };
    const { placed } = await acceptedOrder(rt, "customer-sub", fixture);
    const orderId = placed.order.id;
    const pizzaLine = placed.lines.find((l) => l.name === "Margherita")!;
    const replacement = menu.items.find((i) => i.name === "Quattro Formaggi")!;

    t.match(await rt.attempt(proposeSubstitution(user("owner-other"), orderId, { lineNo: pizzaLine.lineNo, replacementItemId: replacement.id, reason: null })), {
      ok: false,
      error: { code: "not_found" },
    }, "another restaurant's staff: 404");
    t.match(await rt.attempt(proposeSubstitution(user("owner-sub"), orderId, { lineNo: 99, replacementItemId: replacement.id, reason: null })), { ok: false, error: { code: "validation_failed" } });
    t.match(await rt.attempt(proposeSubstitution(user("owner-sub"), orderId, { lineNo: pizzaLine.lineNo, replacementItemId: pizzaLine.itemId, reason: null })), {
      ok: false,
      error: { code: "validation_failed" },
    }, "the same item is no substitution");

    const proposed = await rt.run(proposeSubstitution(user("owner-sub"), orderId, { lineNo: pizzaLine.lineNo, replacementItemId: replacement.id, reason: "out of mozzarella" }));
    t.match(proposed, { status: "proposed", replacementName: "Quattro Formaggi", replacementUnitPriceMinor: 1400, chargedLineTotalMinor: pizzaLine.lineTotalMinor });
    t.match(await rt.attempt(proposeSubstitution(user("owner-sub"), orderId, { lineNo: pizzaLine.lineNo, replacementItemId: replacement.id, reason: null })), {
      ok: false,
      error: { code: "substitution_conflict" },
    }, "one substitution per line");

    // The customer is told by a push (the push consumer, then its durable job).
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliveryPushConsumer], { workerId: "sub-relay" })).claimed === 0) break;
      }),
    );
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "sub-jobs", concurrency: 1 })));
    t.same(
      rt.pushes.filter((p) => p.kind === "substitution_proposed").map((p) => [p.recipientUserId, p.data["substitution_id"]]),
      [["customer-sub", proposed.id]],
      "one push to the customer",
    );

    t.match(await rt.attempt(listSubstitutions(user("someone-else"), orderId)), { ok: false, error: { code: "not_found" } });
    t.same((await rt.run(listSubstitutions(user("customer-sub"), orderId))).data.map((s) => s.id), [proposed.id]);
    t.match(await rt.attempt(decideSubstitution(user("someone-else"), orderId, proposed.id, "accepted")), { ok: false, error: { code: "not_found" } });
    const accepted = await rt.run(decideSubstitution(user("customer-sub"), orderId, proposed.id, "accepted"));
    t.equal(accepted.status, "accepted");
    t.equal((await rt.run(decideSubstitution(user("customer-sub"), orderId, proposed.id, "accepted"))).status, "accepted", "the same decision again: same answer");
    t.match(await rt.attempt(decideSubstitution(user("customer-sub"), orderId, proposed.id, "refused")), { ok: false, error: { code: "substitution_conflict" } }, "decided once");

    // The order's price snapshot is unchanged: what was authorized is what is captured.
    const after = await rt.run(getOrder(user("customer-sub"), orderId));
    t.equal(after.order.totalMinor, placed.order.totalMinor, "the total to capture is the authorized one");
    t.same(after.lines, placed.lines, "the order lines are unchanged (immutable)");

    // After pickup nothing can be substituted any more.
    const picked = await pickedUpOrder(rt, "customer-late", fixture);
    const lateLine = picked.placed.lines[0]!;
    t.match(await rt.attempt(proposeSubstitution(user("owner-sub"), picked.placed.order.id, { lineNo: lateLine.lineNo, replacementItemId: replacement.id, reason: null })), {
      ok: false,
      error: { code: "substitution_not_allowed" },
    });
    await advanceDelivery(rt, picked.courier.principal, picked.accepted.delivery.id, { transitionId: "d", status: "delivered" });
  }),
);
