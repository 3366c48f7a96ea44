/**
 * Support reads a delivery's chat (spec: Authentication 2, "Dispatcher or support (region-scoped
 * operations; sensitive actions audited)"; the masked chat's messages are kept
 * DELIVERY_CHAT_RETENTION_SECONDS after the delivery ended for support): GET
 * /dispatch/deliveries/:id/messages answers a dispatcher of the delivery's region, in keyset
 * pages, `Cache-Control: no-store`, also after the delivery ended; anyone else, or a delivery of
 * another region, 404. Each read writes one row (actor, delivery, time) to dl_chat_access_log,
 * which the database keeps append-only; the retention pass still deletes the messages — SQLite
 * and Postgres.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { listSupportChatMessages } from "../../core/delivery/ListSupportChatMessages.js";
import { purgeChat } from "../../core/delivery/LocationRetention.js";
import { at } from "../worker/fixtures.js";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, freshKey, onlineCourier, openRestaurant, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a dispatcher of the delivery's region reads its chat, each read audited, until the chat retention deletes it [${dialect}]`, async (t) => {
    const dispatcher = randomUUID();
    const farDispatcher = randomUUID();
    const { server, as } = await startDeliveryServer(t, dialect, {
      DELIVERY_DISPATCHERS: `${dispatcher}=52.0:13.0:53.0:14.0,${farDispatcher}=48.0:11.0:49.0:12.0`,
      DELIVERY_CHAT_RETENTION_SECONDS: "3600",
    });
    const support = as(dispatcher);
    const otherRegion = as(farDispatcher);
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    await onlineCourier(courier);
    const deliveryId = await acceptedOrderDelivery(customer, owner, r);
    const offer = (await courier.get("/couriers/me/offers")).body.data[0];
    const assigned = await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, freshKey());
    t.equal(assigned.status, 200, "the courier is assigned");
    t.equal((await customer.post(`/deliveries/${deliveryId}/messages`, { body: "Ring twice please" })).status, 201);
    t.equal((await courier.post(`/deliveries/${deliveryId}/messages`, { body: "On my way" })).status, 201);
    const picked = await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: assigned.body.version });
    t.equal(picked.status, 200);
    t.equal((await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "d", status: "delivered", expected_version: picked.body.version })).status, 200, "delivered");

    const accessRows = async () =>
      (await server.core.database.db.selectFrom("dl_chat_access_log").select(["viewer_id", "delivery_id", "at"]).orderBy("id").execute()).map((row) => [String(row.viewer_id), String(row.delivery_id)]);

    // After the delivery ended, the messages are kept for support: the region's dispatcher reads them.
    const first = await support.get(`/dispatch/deliveries/${deliveryId}/messages?limit=1`);
    t.match(first, { status: 200, body: { data: [{ body: "Ring twice please", sender_role: "customer" }] } }, "oldest first");
    t.equal(first.headers.get("cache-control"), "no-store", "not cached");
    t.type(first.body.next_cursor, "string", "a keyset page with a next cursor");
    const second = await support.get(`/dispatch/deliveries/${deliveryId}/messages?limit=1&cursor=${encodeURIComponent(String(first.body.next_cursor))}`);
    t.match(second, { status: 200, body: { data: [{ body: "On my way", sender_role: "courier" }] } }, "the next page");
    t.same(await accessRows(), [[dispatcher, deliveryId], [dispatcher, deliveryId]], "each read writes one access row with the dispatcher and the delivery");
    const logged = await server.core.database.db.selectFrom("dl_chat_access_log").select(["at"]).executeTakeFirstOrThrow();
    t.ok(logged.at !== null && logged.at !== undefined, "with the time of the read");

    // Anyone else: 404, as an unknown delivery; nothing is logged for them.
    t.match(await otherRegion.get(`/dispatch/deliveries/${deliveryId}/messages`), { status: 404, body: { code: "not_found" } }, "a dispatcher of another region: 404");
    for (const [who, client] of [["the customer", customer], ["the courier", courier], ["the restaurant", owner]] as const) {
      const refused = await client.get(`/dispatch/deliveries/${deliveryId}/messages`);
      t.equal(refused.status, 404, `${who}: 404`);
      t.match(refused.headers.get("content-type"), /application\/problem\+json/);
    }
    t.match(await support.get(`/dispatch/deliveries/${randomUUID()}/messages`), { status: 404 }, "an unknown delivery: 404");
    const badCursor = await support.get(`/dispatch/deliveries/${deliveryId}/messages?cursor=not-a-cursor`);
    t.match(badCursor, { status: 400, body: { code: "invalid_cursor" } }, "an unreadable cursor: 400");
    t.match(badCursor.headers.get("content-type"), /application\/problem\+json/);
    t.match(await support.get(`/dispatch/deliveries/${deliveryId}/messages?limit=0`), { status: 400 }, "a limit out of bounds: 400");
    t.equal((await accessRows()).length, 2, "refused reads write no access row");

    // The log is append-only in the database.
    const rewrite = server.core.database.db.updateTable("dl_chat_access_log").set({ viewer_id: "someone-else" }).execute();
    await t.rejects(rewrite, "an access row cannot be changed");
    await t.rejects(server.core.database.db.deleteFrom("dl_chat_access_log").execute(), "nor deleted");

    // The retention still applies: past it, support reads nothing even before the pass has run …
    const later = at(Date.now() + 3601_000);
    const pastRetention = await server.core.runtime.runPromise(later(listSupportChatMessages({ kind: "user", userId: dispatcher }, deliveryId)));
    t.same(pastRetention.data, [], "past the retention support reads no message, before the pass has run");
    // … and once it has passed, the pass deletes the messages and support reads none.
    t.equal(await server.core.runtime.runPromise(at(Date.now() + 3601_000)(purgeChat)), 2, "the retention pass deletes the messages");
    t.match(await support.get(`/dispatch/deliveries/${deliveryId}/messages`), { status: 200, body: { data: [], next_cursor: null } }, "support reads nothing after the retention");
  });
}
