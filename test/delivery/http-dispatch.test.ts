/**
 * The dispatch console (spec: dispatcher or support, region-scoped; every manual reassignment
 * records actor and reason; overrides need a reason and step-up authentication): a dispatcher
 * lists the unfinished deliveries of their region only and reassigns one with a reason when
 * their sign-in (`auth_time`) is recent; otherwise 403 step_up_required; a delivery outside the
 * region, or any caller who is no dispatcher, gets 404 — SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { hostSecret } from "../hosts/support.js";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, freshKey, onlineCourier, openRestaurant, startDeliveryServer, type Client } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`dispatchers list their region and reassign with a reason and a recent sign-in [${dialect}]`, async (t) => {
    const dispatcherId = randomUUID();
    // The region holds the fixtures' restaurants (around 52.52, 13.405) and not the far one.
    const { server, as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcherId}=52.0:13.0:53.0:14.0`, DELIVERY_STEP_UP_SECONDS: "300" });
    const withToken = async (userId: string, authTime?: number) => {
      const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600, ...(authTime === undefined ? {} : { authTime }) });
      const call = async (method: string, path: string, body?: unknown, key?: string) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      };
      return call;
    };
    // A stored answer as text: JSON text on SQLite, jsonb (an object) on Postgres.
    const storedText = (response: unknown): string => (typeof response === "string" ? response : JSON.stringify(response));
    const nowSeconds = () => Math.floor(Date.now() / 1000);
    const fresh = await withToken(dispatcherId, nowSeconds());
    const stale = await withToken(dispatcherId, nowSeconds() - 3600);
    const plain = await withToken(dispatcherId);

    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const first: Client = as();
    const second: Client = as();
    const firstId = await onlineCourier(first, 0.001);
    const secondId = await onlineCourier(second, 0.002);
    const deliveryId = await acceptedOrderDelivery(customer, owner, r);
    const offer = (await first.get("/couriers/me/offers")).body.data[0];
    const acceptKey = freshKey();
    const acceptedAnswer = await first.post(`/courier-offers/${String(offer.id)}/accept`, {}, acceptKey);
    t.match(acceptedAnswer, { status: 200, body: { dropoff_address: "Alexanderplatz 1" } }, "the winner sees the drop-off");
    t.match(await first.post(`/courier-offers/${String(offer.id)}/accept`, {}, acceptKey), { status: 200, body: { id: acceptedAnswer.body.id, dropoff_address: "Alexanderplatz 1" } }, "a replay while assigned shows it again");

    // A restaurant far outside the region, with its own accepted order.
    const farOwner = as();
    const far = await farOwner.post("/restaurants", { name: "Far", lat: 48.1, lng: 11.5, service_radius_m: 5000, currency: "EUR" });
    const farMenu = await farOwner.post(`/restaurants/${String(far.body.id)}/menus`, { items: [{ name: "Brezel", price_minor: 300 }] });
    await farOwner.post(`/restaurants/${String(far.body.id)}/open`);
    const farQuote = await customer.post("/orders/quote", {
      restaurant_id: far.body.id,
      menu_version: 1,
      lines: [{ item_id: farMenu.body.items[0].id, quantity: 1 }],
      dropoff: { lat: 48.101, lng: 11.5, address: "Marienplatz 1" },
    });
    const farOrder = await customer.post("/orders", { quote_id: farQuote.body.id, payment_method: "pm_card_visa" }, freshKey());
    const farDelivery = String((await farOwner.post(`/restaurant-orders/${String(farOrder.body.id)}/accept`, { prep_time_minutes: 5 })).body.delivery_id);

    t.match(await customer.get("/dispatch/deliveries"), { status: 403 }, "the console is for dispatchers");
    const listed = await fresh("GET", "/dispatch/deliveries");
    t.equal(listed.status, 200);
    const ids = (listed.body.data as Array<{ id: string }>).map((d) => d.id);
    t.ok(ids.includes(deliveryId), "the region's delivery is listed");
    t.notOk(ids.includes(farDelivery), "another region's delivery is not");

    /*
     * Spec, Authentication 2: "Dispatcher or support (region-scoped operations; sensitive actions
     * audited)"; Authentication 4: "Location access is … audited". The region list shows no
     * customer and no drop-off; the drop-off comes from the single-delivery read, and each such
     * read writes one access-log row.
     */
    const accessRows = async () =>
      (await server.core.database.db.selectFrom("dl_location_access_log").select(["viewer_id", "viewer_role", "delivery_id"]).where("viewer_id", "=", dispatcherId).execute()).map(
        (r) => [String(r.viewer_role), String(r.delivery_id)],
      );
    const row = (listed.body.data as Array<Record<string, unknown>>).find((d) => d.id === deliveryId) ?? {};
    for (const hidden of ["customer_id", "dropoff_address", "dropoff_lat", "dropoff_lng"]) t.notOk(hidden in row, `the region list leaves out ${hidden}`);
    t.notMatch(JSON.stringify(listed.body), /Alexanderplatz/, "no customer address in the list");
    t.same(await accessRows(), [], "listing reads no drop-off, so it writes no access row");
    const read = await fresh("GET", `/dispatch/deliveries/${deliveryId}`);
    t.match(read, { status: 200, body: { id: deliveryId, dropoff_address: "Alexanderplatz 1", customer_id: customer.userId } }, "the single read shows the drop-off");
    t.same(await accessRows(), [["dispatcher", deliveryId]], "one access-log row per read");
    t.match(await fresh("GET", `/dispatch/deliveries/${farDelivery}`), { status: 404 }, "another region's delivery: 404");
    t.match(await customer.get(`/dispatch/deliveries/${deliveryId}`), { status: 404 }, "a non-dispatcher: 404");
    t.equal((await accessRows()).length, 1, "refused reads are not logged as accesses");

    const reassign = (call: typeof fresh, id: string, body: unknown = { courier_id: secondId, reason: "courier reported a flat tyre" }) =>
      call("POST", `/deliveries/${id}/reassign`, body, freshKey());
    t.match(await reassign(plain, deliveryId), { status: 403, body: { code: "step_up_required" } }, "a token without auth_time is not enough");
    t.match(await reassign(stale, deliveryId), { status: 403, body: { code: "step_up_required", max_age_seconds: 300 } }, "an old sign-in is not enough");
    t.match(await reassign(fresh, farDelivery), { status: 404 }, "a delivery outside the region answers 404");
    const customerCall = await withToken(customer.userId, nowSeconds());
    t.match(await reassign(customerCall, deliveryId), { status: 404 }, "a non-dispatcher answers 404");
    t.match(await reassign(fresh, deliveryId, { courier_id: secondId, reason: " " }), { status: 422 }, "a reason is required");
    const reassignKey = freshKey();
    const done = await fresh("POST", `/deliveries/${deliveryId}/reassign`, { courier_id: secondId, reason: "courier reported a flat tyre" }, reassignKey);
    t.match(done, { status: 200, body: { id: deliveryId, courier_id: secondId, status: "assigned" } });
    // Authentication 2 and 4 again: the reassignment's answer (stored under its Idempotency-Key
    // and replayed) is not a way around the audited read — no customer, no drop-off, no access row.
    for (const hidden of ["customer_id", "dropoff_address", "dropoff_lat", "dropoff_lng"]) t.notOk(hidden in done.body, `the reassignment's answer leaves out ${hidden}`);
    t.equal((await accessRows()).length, 1, "a reassignment shows no drop-off, so it writes no access row");
    const storedReassign = await server.core.database.db.selectFrom("idempotency_keys").select(["state", "response"]).where("key", "=", reassignKey).executeTakeFirstOrThrow();
    t.equal(String(storedReassign.state), "completed", "the reassignment's answer is stored");
    t.notMatch(storedText(storedReassign.response), /Alexanderplatz|dropoff|customer_id/, "without the customer or the drop-off");
    t.equal((await first.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: done.body.version })).status, 404, "the previous courier lost the job");
    t.equal((await second.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: done.body.version })).status, 200, "the new courier has it");

    // Spec, Authentication 3: "A courier sees the customer address only for an assigned active
    // delivery" — also through a replay of its own accept under the same Idempotency-Key.
    const stored = await server.core.database.db.selectFrom("idempotency_keys").select(["state", "response"]).where("key", "=", acceptKey).executeTakeFirstOrThrow();
    t.equal(String(stored.state), "completed", "the accept's answer is stored");
    t.notMatch(storedText(stored.response), /Alexanderplatz|dropoff/, "without the drop-off");
    const replayed = await first.post(`/courier-offers/${String(offer.id)}/accept`, {}, acceptKey);
    t.match(replayed, { status: 409, body: { code: "delivery_already_assigned" } }, "a replay after the reassignment is refused");
    t.notMatch(JSON.stringify(replayed.body), /Alexanderplatz/, "and shows no drop-off");

    const history = await server.core.runtime.runPromise(Effect.flatMap(DispatchRepository, (d) => d.statusHistory(deliveryId)));
    t.match(
      history.find((h) => h.transitionId.startsWith("reassign:")),
      { actorId: dispatcherId, reason: "courier reported a flat tyre", toStatus: "assigned" },
      "actor and reason are recorded",
    );
    t.not(firstId, secondId);
  });
}
