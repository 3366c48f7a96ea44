/**
 * Removing restaurant staff (spec: Authentication 2, "Restaurant staff (only their restaurant's
 * menu and incoming orders)"; "sensitive actions audited"): whoever may add staff (any staff
 * member) removes one; the removal is idempotent, audited with actor and reason, never leaves a
 * restaurant without staff (the restaurant row is locked: two staff removing each other at once
 * on parallel Postgres connections leave exactly one), tells the realtime bus after commit, and
 * the removed user is refused like any non-staff user: orders, acceptance, channel, pushes.
 * SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { acceptOrder } from "../../core/delivery/AcceptOrder.js";
import { maySubscribeToRestaurant } from "../../core/delivery/ChannelAccess.js";
import { listIncomingOrders } from "../../core/delivery/IncomingOrders.js";
import { orderSettlement } from "../../core/delivery/OrderSettlement.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { deliveryPushConsumer } from "../../core/delivery/PushNotifications.js";
import { addStaff, removeStaff } from "../../core/delivery/Restaurants.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { at } from "../worker/fixtures.js";
import { authorizedOrder, deliveryRuntime, forEachDeliveryDialect, openRestaurant, user, type DeliveryRuntime } from "./support.js";

const staffOf = (rt: DeliveryRuntime, restaurantId: string) => rt.run(Effect.flatMap(RestaurantsRepository, (r) => r.staffOf(restaurantId, 100)));

const relayPushes = (rt: DeliveryRuntime) =>
  rt.run(
    Effect.gen(function* () {
      for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliveryPushConsumer], { workerId: "test-relay" })).claimed === 0) break;
    }),
  );

t.test("a staff member removes another: audited with actor and reason, access_changed after commit, and the removed user is refused like any non-staff user", (t) =>
  forEachDeliveryDialect(t, "remove staff", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-r");
    const id = fixture.restaurant.id;
    await rt.run(addStaff(user("owner-r"), id, "cook-r"));
    const placed = await authorizedOrder(rt, "customer-r", fixture);
    t.equal((await rt.run(listIncomingOrders(user("cook-r"), id))).data.length, 1, "staff read the incoming orders");

    const removed = await rt.run(removeStaff(user("owner-r"), id, "cook-r", { reason: "left the team" }));
    t.same(removed, { removed: true });
    t.same(await staffOf(rt, id), ["owner-r"], "the cook is no longer staff");
    const audit = await db.db.selectFrom("dl_staff_removals").selectAll().where("restaurant_id", "=", id).execute();
    t.equal(audit.length, 1, "one audit row");
    t.match(audit[0], { restaurant_id: id, user_id: "cook-r", actor_id: "owner-r", reason: "left the team" }, "actor and reason audited");
    await t.rejects(db.db.updateTable("dl_staff_removals").set({ reason: "changed" }).execute(), "the audit refuses UPDATE");
    await t.rejects(db.db.deleteFrom("dl_staff_removals").execute(), "and DELETE");
    t.same(
      rt.notices.filter((n) => n.type === "access_changed"),
      [{ type: "access_changed", userId: "cook-r", channel: `restaurant:${id}` }],
      "the removed user's restaurant subscriptions are re-checked",
    );

    t.match(await rt.attempt(listIncomingOrders(user("cook-r"), id)), { ok: false, error: { _tag: "NotFound" } }, "orders: refused like a stranger");
    t.match(await rt.attempt(acceptOrder(user("cook-r"), placed.order.id, { prepTimeMinutes: 10 })), { ok: false, error: { _tag: "NotFound" } }, "acceptance: refused");
    t.match(await rt.attempt(orderSettlement(user("cook-r"), placed.order.id)), { ok: false, error: { _tag: "NotFound" } }, "settlement: refused");
    t.match(await rt.attempt(orderSettlement(user("owner-r"), placed.order.id)), { ok: true }, "the owner still reads it");
    t.match(await rt.attempt(addStaff(user("cook-r"), id, "friend")), { ok: false, error: { _tag: "NotFound" } }, "adding staff back: refused");
    t.equal(await rt.run(maySubscribeToRestaurant(user("cook-r"), id)), false, "the restaurant channel refuses them");
    t.equal(await rt.run(maySubscribeToRestaurant(user("owner-r"), id)), true, "the owner keeps the channel");

    // Idempotent: removing someone who is not staff succeeds and changes nothing.
    t.same(await rt.run(removeStaff(user("owner-r"), id, "cook-r", { reason: "again" })), { removed: false });
    t.same(await rt.run(removeStaff(user("owner-r"), id, "never-staff")), { removed: false });
    t.equal((await db.db.selectFrom("dl_staff_removals").selectAll().execute()).length, 1, "no second audit row");
    t.equal(rt.notices.filter((n) => n.type === "access_changed").length, 1, "no second notice");
  }),
);

t.test("removal rules: the last staff member cannot be removed (409 last_staff_member), a member may leave while others remain, another restaurant's staff get 404, bad input 422", (t) =>
  forEachDeliveryDialect(t, "removal rules", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-l");
    const other = await openRestaurant(rt, "owner-o");
    const id = fixture.restaurant.id;

    t.match(
      await rt.attempt(removeStaff(user("owner-l"), id, "owner-l")),
      { ok: false, error: { _tag: "LastStaffMember", code: "last_staff_member", category: "conflict" } },
      "the only staff member cannot remove themself",
    );
    t.same(await staffOf(rt, id), ["owner-l"]);

    t.match(await rt.attempt(removeStaff(user("owner-o"), id, "owner-l")), { ok: false, error: { _tag: "NotFound" } }, "another restaurant's owner: 404");
    t.match(await rt.attempt(removeStaff(user("owner-o"), id, "nobody")), { ok: false, error: { _tag: "NotFound" } }, "404 even for a non-member");
    t.match(await rt.attempt(removeStaff(user("owner-l"), "no-such-restaurant", "x")), { ok: false, error: { _tag: "NotFound" } });
    t.match(await rt.attempt(removeStaff(user("owner-l"), id, "  ")), { ok: false, error: { _tag: "ValidationFailed" } }, "an empty user id: 422");
    t.match(await rt.attempt(removeStaff(user("owner-l"), id, "x", { reason: "r".repeat(501) })), { ok: false, error: { _tag: "ValidationFailed" } }, "a reason over 500 characters: 422");

    await rt.run(addStaff(user("owner-l"), id, "manager-l"));
    t.same(await rt.run(removeStaff(user("owner-l"), id, "owner-l", { reason: "handing over" })), { removed: true }, "the creator may leave while someone remains");
    t.same(await staffOf(rt, id), ["manager-l"]);
    t.match(await rt.attempt(removeStaff(user("manager-l"), id, "manager-l")), { ok: false, error: { code: "last_staff_member" } }, "the remaining one is the last");
    t.same(await staffOf(rt, other.restaurant.id), ["owner-o"], "the other restaurant is untouched");
  }),
);

t.test("two staff removing each other at once (parallel Postgres connections, serialized on SQLite) leave exactly one staff member", (t) =>
  forEachDeliveryDialect(t, "removal race", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const rounds = 6;
    for (let i = 0; i < rounds; i++) {
      const fixture = await openRestaurant(rt, `owner-${i}`);
      const id = fixture.restaurant.id;
      await rt.run(addStaff(user(`owner-${i}`), id, `cook-${i}`));
      const answers = await Promise.all([
        rt.attempt(removeStaff(user(`owner-${i}`), id, `cook-${i}`, { reason: "race" })),
        rt.attempt(removeStaff(user(`cook-${i}`), id, `owner-${i}`, { reason: "race" })),
      ]);
      const winners = answers.filter((a) => a.ok && a.value.removed);
      t.equal(winners.length, 1, `round ${i}: exactly one removal wins`);
      const loser = answers.find((a) => !(a.ok && a.value.removed));
      t.match(loser, { ok: false, error: { _tag: "NotFound" } }, `round ${i}: the other finds itself removed (404)`);
      t.equal((await staffOf(rt, id)).length, 1, `round ${i}: one staff member remains`);
      t.equal((await db.db.selectFrom("dl_staff_removals").selectAll().where("restaurant_id", "=", id).execute()).length, 1, `round ${i}: one audit row`);
    }
  }),
);

t.test("pushes to staff no longer reach a removed member, including a push already scheduled for them", (t) =>
  forEachDeliveryDialect(t, "removal pushes", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-q");
    const id = fixture.restaurant.id;
    await rt.run(addStaff(user("owner-q"), id, "cook-q"));
    await rt.run(addStaff(user("owner-q"), id, "runner-q"));

    // An order placed while the cook is staff: its pushes are scheduled, then the cook leaves before they run.
    await authorizedOrder(rt, "customer-q1", fixture);
    await relayPushes(rt);
    await rt.run(removeStaff(user("owner-q"), id, "cook-q", { reason: "left" }));
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    const placedTo = () => rt.pushes.filter((p) => p.kind === "order_placed").map((p) => p.recipientUserId).sort();
    t.same(placedTo(), ["owner-q", "runner-q"], "the push scheduled before the removal is not sent to the removed cook");
    t.match(rt.pushes.find((p) => p.kind === "order_placed")?.data, { restaurant_id: id }, "a staff push names its restaurant (re-checked when sent)");

    // An order placed after the removal: the cook is not a recipient at all.
    await authorizedOrder(rt, "customer-q2", fixture);
    await relayPushes(rt);
    await rt.run(at(Date.now() + 120_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.same(placedTo(), ["owner-q", "owner-q", "runner-q", "runner-q"], "the next order's pushes reach the remaining staff only");
  }),
);
