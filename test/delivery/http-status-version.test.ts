/**
 * Spec, States: PATCH /v1/deliveries/:id/status requires "caller is the assigned courier;
 * transition id supplied; version check; transition is permitted"; Versioning: "Deliveries
 * carry a version used with the supplied transition id for idempotent, ordered transitions".
 * A status change without expected_version is 422 naming the field and changes nothing; with it
 * the change is made, and repeating the transition id answers the same change.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, freshKey, onlineCourier, openRestaurant, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a delivery status change requires the version check: expected_version is required [${dialect}]`, async (t) => {
    const { as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    await onlineCourier(courier);
    const deliveryId = await acceptedOrderDelivery(customer, owner, r, 10);
    const offer = ((await courier.get("/couriers/me/offers")).body.data as Array<{ id: string; delivery_id: string }>).find((o) => o.delivery_id === deliveryId);
    const won = await courier.post(`/courier-offers/${String(offer?.id)}/accept`, {}, freshKey());
    t.equal(won.status, 200, "the courier is assigned");

    const unversioned = await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up" });
    t.match(unversioned, { status: 422, body: { errors: [{ path: "expected_version" }] } }, "without expected_version: 422 naming the field");
    const job = await courier.get(`/couriers/me/deliveries/${deliveryId}`);
    t.match(job, { status: 200, body: { status: "assigned", version: won.body.version } }, "nothing changed");

    const pickedUp = await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: won.body.version });
    t.match(pickedUp, { status: 200, body: { to_status: "picked_up", version: Number(won.body.version) + 1 } }, "with it: the change is made");
    const repeated = await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: won.body.version });
    t.same(repeated.body, pickedUp.body, "the same transition id answers the same change");
  });
}
