/**
 * The customer does not learn which staff member acted on their order (security audit, second
 * round, F4; docs/decisions.md: "the customer must not learn who in the warehouse holds the
 * order"): their timeline (a customer's or a guest's), listed and embedded in the order view, shows
 * a staff actor as `staff`, while support and the owner still read who. SQLite and Postgres, over HTTP.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Entry = { kind: string; actor_id: string };

t.test("timeline: a shopper sees a staff actor as `staff`, without the person; support and the owner see who", (t) =>
  forEachDialectConfig(t, "timeline staff actor", async (t, _config, dialect) => {
    const { call, staffedStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, ada, clerk, buyer } = await staffedStore();
    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const guestCart = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const guestToken = String(guestCart.body.cart_token);
    await call("POST", `/v1/carts/${String(guestCart.body.id)}/lines`, { token: guestToken, body: { variant_id: variantId, quantity: 1 } });
    const guestPlaced = await call("POST", "/v1/orders", { token: guestToken, key: freshKey(), body: checkoutBody(String(guestCart.body.id)) });
    t.equal(guestPlaced.status, 201);
    const guestOrderId = String(guestPlaced.body.id);
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: ada.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 2,
    );
    for (const task of listed.body.data as Array<{ id: string; order_id: string }>) {
      t.match(await call("POST", `/v1/fulfillment-tasks/${task.id}/take`, { token: ada.token }), { status: 200 });
      t.match(
        await call("POST", `/v1/orders/${task.order_id}/shipments`, { token: ada.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${task.order_id}` } }),
        { status: 201 },
      );
    }

    const dispatchActors = (entries: ReadonlyArray<Entry>) =>
      entries.filter((e) => e.kind === "shipment.dispatched" || e.kind === "order.dispatched").map((e) => [e.kind, e.actor_id]);
    const listOf = async (order: string, token: string) => {
      const answer = await call("GET", `/v1/orders/${order}/timeline`, { token });
      t.equal(answer.status, 200);
      return answer.body.data as Entry[];
    };
    const viewOf = async (order: string, token: string) => {
      const answer = await call("GET", `/v1/orders/${order}`, { token });
      t.equal(answer.status, 200);
      return answer.body.timeline as Entry[];
    };
    const anonymous = [["shipment.dispatched", "staff"], ["order.dispatched", "staff"]];
    const named = [["shipment.dispatched", `staff:${ada.id}`], ["order.dispatched", `staff:${ada.id}`]];

    for (const [shopper, order, token, own] of [["customer", orderId, buyer.token, `user:${buyer.id}`], ["guest", guestOrderId, guestToken, "guest"]] as const) {
      for (const [where, entries] of [["listed", await listOf(order, token)], ["in the order view", await viewOf(order, token)]] as const) {
        t.same(dispatchActors(entries), anonymous, `the ${shopper}'s timeline ${where} shows the dispatch by staff`);
        t.notOk(JSON.stringify(entries).includes(ada.id), `and names no staff member ${where}`);
        t.ok(entries.some((e) => e.actor_id === own), `while the ${shopper}'s own entries stay theirs ${where}`);
      }
    }
    for (const [who, token] of [["support", clerk.token], ["the owner", owner.token]] as const) {
      for (const order of [orderId, guestOrderId]) {
        t.same(dispatchActors(await listOf(order, token)), named, `${who} reads who dispatched`);
        t.same(dispatchActors(await viewOf(order, token)), named, `${who} reads who dispatched in the order view`);
      }
    }
  }),
);
