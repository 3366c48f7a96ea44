/**
 * Removing restaurant staff over HTTP and ws on the reference server (SQLite and Postgres):
 * `DELETE /restaurants/:id/staff/:user_id?reason=` by a staff member answers 204 (again: 204,
 * nothing changes); the removed member's live `restaurant:<id>` subscription ends with
 * `unsubscribed` (`access_revoked`) and their next request is refused like any non-staff user's;
 * another restaurant's owner gets 404; removing the last staff member answers 409
 * `last_staff_member`; bad input answers 422; every refusal is problem+json.
 */
import t from "tap";
import { dialects, type TapTest } from "../support/databases.js";
import { connectRealtime, openRestaurant, startDeliveryServer } from "./http-support.js";

const isProblem = (t: TapTest, answer: { headers: Headers }, what: string) =>
  t.match(answer.headers.get("content-type") ?? "", /application\/problem\+json/, `${what}: problem+json`);

for (const dialect of dialects) {
  t.test(`a removed staff member loses the restaurant at once: orders, actions and the live channel [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const cook = as();
    const stranger = as();
    const r = await openRestaurant(owner, t);
    const mine = await stranger.post("/restaurants", { name: "Elsewhere", lat: 52.52, lng: 13.405, service_radius_m: 5000, currency: "EUR" });
    t.equal((await owner.post(`/restaurants/${r.restaurantId}/staff`, { user_id: cook.userId })).status, 201, "the cook joins");
    t.equal((await cook.get(`/restaurants/${r.restaurantId}/orders`)).status, 200, "the cook reads the orders");

    const cookLive = await connectRealtime(server.url, await cook.token());
    const ownerLive = await connectRealtime(server.url, await owner.token());
    t.teardown(() => {
      cookLive.close();
      ownerLive.close();
    });
    const channel = `restaurant:${r.restaurantId}`;
    cookLive.send({ type: "subscribe", channel });
    t.match(await cookLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed", channel }, "the cook subscribes to the restaurant");
    ownerLive.send({ type: "subscribe", channel });
    t.match(await ownerLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed", channel });

    const foreign = await stranger.delete(`/restaurants/${r.restaurantId}/staff/${cook.userId}?reason=hostile`);
    t.match(foreign, { status: 404, body: { code: "not_found" } }, "another restaurant's owner: 404");
    isProblem(t, foreign, "404");
    t.equal((await stranger.delete(`/restaurants/${String(mine.body.id)}/staff/${owner.userId}`)).status, 204, "their own restaurant: the owner is not staff there, nothing changes");

    const tooLong = await owner.delete(`/restaurants/${r.restaurantId}/staff/${cook.userId}?reason=${"r".repeat(501)}`);
    t.match(tooLong, { status: 422 }, "a reason over 500 characters: 422");
    isProblem(t, tooLong, "422");

    const removed = await owner.delete(`/restaurants/${r.restaurantId}/staff/${cook.userId}?reason=left%20the%20team`);
    t.equal(removed.status, 204, "removed");
    t.same(removed.body, {}, "no body");
    t.match(
      await cookLive.next((m) => m.type === "unsubscribed", 10_000),
      { type: "unsubscribed", channel, reason: "access_revoked" },
      "the removed cook's live subscription ends",
    );

    const orders = await cook.get(`/restaurants/${r.restaurantId}/orders`);
    t.match(orders, { status: 404, body: { code: "not_found" } }, "the removed cook's next request is refused like a stranger's");
    isProblem(t, orders, "refused read");
    t.equal((await cook.post(`/restaurants/${r.restaurantId}/close`)).status, 404, "and actions too");
    const later = await connectRealtime(server.url, await cook.token());
    t.teardown(() => later.close());
    later.send({ type: "subscribe", channel });
    t.match(await later.next((m) => m.type === "subscribed" || m.type === "error"), { type: "error" }, "a new subscription is refused");

    t.equal((await owner.delete(`/restaurants/${r.restaurantId}/staff/${cook.userId}?reason=again`)).status, 204, "removing again: 204, nothing changes");
    t.equal((await owner.get(`/restaurants/${r.restaurantId}/orders`)).status, 200, "the owner keeps the restaurant");
    t.notOk(ownerLive.messages.some((m) => m.type === "unsubscribed"), "the owner's subscription stays");

    const last = await owner.delete(`/restaurants/${r.restaurantId}/staff/${owner.userId}`);
    t.match(last, { status: 409, body: { code: "last_staff_member" } }, "the last staff member cannot be removed");
    isProblem(t, last, "409");
  });
}
