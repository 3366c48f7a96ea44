/**
 * The customer does not learn which staff member acted on their order (security audit, second
 * round, F4; docs/decisions.md: "the customer must not learn who in the warehouse holds the
 * order"): their timeline, listed and embedded in the order view, shows a staff actor as `staff`,
 * while support and the owner still read who. SQLite and Postgres, over HTTP.
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
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: ada.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 1,
    );
    const taskId = String((listed.body.data as Array<{ id: string }>)[0]!.id);
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/take`, { token: ada.token }), { status: 200 });
    t.match(
      await call("POST", `/v1/orders/${orderId}/shipments`, { token: ada.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${orderId}` } }),
      { status: 201 },
    );

    const dispatchActors = (entries: ReadonlyArray<Entry>) =>
      entries.filter((e) => e.kind === "shipment.dispatched" || e.kind === "order.dispatched").map((e) => [e.kind, e.actor_id]);
    const listOf = async (token: string) => {
      const answer = await call("GET", `/v1/orders/${orderId}/timeline`, { token });
      t.equal(answer.status, 200);
      return answer.body.data as Entry[];
    };
    const viewOf = async (token: string) => {
      const answer = await call("GET", `/v1/orders/${orderId}`, { token });
      t.equal(answer.status, 200);
      return answer.body.timeline as Entry[];
    };
    const anonymous = [["shipment.dispatched", "staff"], ["order.dispatched", "staff"]];
    const named = [["shipment.dispatched", `staff:${ada.id}`], ["order.dispatched", `staff:${ada.id}`]];

    for (const [where, entries] of [["listed", await listOf(buyer.token)], ["in the order view", await viewOf(buyer.token)]] as const) {
      t.same(dispatchActors(entries), anonymous, `the customer's timeline ${where} shows the dispatch by staff`);
      t.notOk(JSON.stringify(entries).includes(ada.id), `and names no staff member ${where}`);
      t.ok(entries.some((e) => e.actor_id === `user:${buyer.id}`), `while the customer's own entries stay theirs ${where}`);
    }
    for (const [who, token] of [["support", clerk.token], ["the owner", owner.token]] as const) {
      t.same(dispatchActors(await listOf(token)), named, `${who} reads who dispatched`);
      t.same(dispatchActors(await viewOf(token)), named, `${who} reads who dispatched in the order view`);
    }
  }),
);
