/**
 * A staff role granted can be revoked (spec, Authentication 2: staff act by role in their store;
 * an employee who leaves must stop reading orders, adjusting stock and dispatching). The store's
 * owner revokes a role with `DELETE /v1/stores/:id/staff/:user_id/roles/:role?reason=...`
 * (idempotent: revoking a role not held answers 204 and changes nothing). A revoked warehouse
 * operator's open tasks are released (on the order's timeline, published as FulfillmentTaskAssigned
 * with assignee null, on the store's pool `shop-fulfillment:<store>`), their live `shop-fulfillment`
 * subscriptions, their own and the pool (and a revoked support clerk's
 * `shop-order` one) ends with `unsubscribed` at once, and their next request is refused as a
 * non-staff user's. The last owner
 * cannot lose `owner` (409). Another store's owner learns nothing (404). SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Message = { type: string; channel?: string; reason?: string; event?: { type: string; data: Record<string, unknown> } };
type TimelineEntry = { kind: string; actor_id: string; detail: Record<string, unknown> };

t.test("an owner revokes a staff role: the user's tasks are released, their live subscriptions end and their next request is refused", (t) =>
  forEachDialectConfig(t, "staff revocation", async (t, _config, dialect) => {
    const { call, staffedStore, cartWith, socket } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, other, ada, bob, clerk, buyer } = await staffedStore();
    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 1,
    );
    const taskId = String((listed.body.data as Array<{ id: string }>)[0]!.id);
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/take`, { token: ada.token }), { status: 200, body: { assignee_id: ada.id } });

    const fulfillmentChannel = `shop-fulfillment:${storeId}:${ada.id}`;
    const orderChannel = `shop-order:${orderId}`;
    const adaSocket = await socket(ada.token);
    const bobSocket = await socket(bob.token);
    const clerkSocket = await socket(clerk.token);
    const pool = `shop-fulfillment:${storeId}`;
    adaSocket.send({ type: "subscribe", channel: fulfillmentChannel });
    adaSocket.send({ type: "subscribe", channel: pool });
    bobSocket.send({ type: "subscribe", channel: `shop-fulfillment:${storeId}:${bob.id}` });
    bobSocket.send({ type: "subscribe", channel: pool });
    clerkSocket.send({ type: "subscribe", channel: orderChannel });
    const subscribed = (s: { messages: ReadonlyArray<unknown> }, n: number) =>
      eventually(async () => (s.messages as Message[]).filter((m) => m.type === "subscribed"), (ms) => ms.length >= n);
    t.equal((await subscribed(adaSocket, 2)).length, 2, "the operator watches her tasks and the store's unassigned ones");
    t.equal((await subscribed(bobSocket, 2)).length, 2);
    t.equal((await subscribed(clerkSocket, 1)).length, 1, "the clerk watches the order");
    t.equal((await call("GET", `/v1/variants/${variantId}/stock`, { token: ada.token })).status, 200, "the operator reads stock before");

    const revoke = (token: string, store: string, userId: string, role: string, reason?: string) =>
      call("DELETE", `/v1/stores/${store}/staff/${userId}/roles/${role}${reason === undefined ? "" : `?reason=${encodeURIComponent(reason)}`}`, { token });

    // Who may revoke: the store's owner; another store's owner learns nothing, staff without owner are 403.
    t.match(await revoke(other.owner.token, storeId, ada.id, "warehouse_operator", "not mine"), { status: 404 }, "another store's owner gets 404");
    t.match(await revoke(clerk.token, storeId, ada.id, "warehouse_operator", "clerk tries"), { status: 403 }, "support staff may not revoke");
    t.match(await revoke(bob.token, storeId, ada.id, "warehouse_operator", "bob tries"), { status: 403 }, "an operator may not revoke");
    const noReason = await revoke(owner.token, storeId, ada.id, "warehouse_operator");
    t.match(noReason, { status: 422, body: { code: "validation_failed" } }, "a reason is required");
    t.match(noReason.headers.get("content-type") ?? "", /application\/problem\+json/);
    const unknownRole = await revoke(owner.token, storeId, ada.id, "janitor", "no such role");
    t.equal(unknownRole.status, 400, "an unknown role in the path is refused as every malformed path is");
    t.match(unknownRole.headers.get("content-type") ?? "", /application\/problem\+json/);
    t.equal((await call("GET", `/v1/variants/${variantId}/stock`, { token: ada.token })).status, 200, "refused revocations changed nothing");

    const revoked = await revoke(owner.token, storeId, ada.id, "warehouse_operator", "ada left the company");
    t.equal(revoked.status, 204, "the owner revokes the role");

    // The live subscriptions are re-checked at once and end.
    const dropped = await eventually(
      async () => (adaSocket.messages as Message[]).filter((m) => m.type === "unsubscribed"),
      (ms) => ms.length >= 2,
    );
    t.same(
      dropped.map((m) => [m.channel, m.reason]).sort(),
      [[fulfillmentChannel, "access_revoked"], [pool, "access_revoked"]].sort(),
      "the revoked operator's fulfillment subscriptions end, her own and the pool",
    );
    t.equal((await subscribed(bobSocket, 2)).length, 2);
    t.notOk((bobSocket.messages as Message[]).some((m) => m.type === "unsubscribed"), "another operator keeps watching");

    // Her next requests are refused as a non-staff user's.
    t.match(await call("GET", `/v1/variants/${variantId}/stock`, { token: ada.token }), { status: 404 }, "no more stock reads");
    t.match(
      await call("POST", "/v1/inventory/adjustments", { token: ada.token, body: { variant_id: variantId, location_id: locationId, delta: 1, reason: "x" } }),
      { status: 404 },
      "no more stock adjustments",
    );
    t.match(await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: ada.token }), { status: 404 });
    t.match(
      await call("POST", `/v1/orders/${orderId}/shipments`, { token: ada.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${orderId}` } }),
      { status: 404 },
      "no more dispatching",
    );

    // Her open task is released in the same transaction: audited on the timeline and published like a release.
    const tasks = (await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token })).body.data as Array<{ id: string; assignee_id: string | null }>;
    t.same(tasks.map((task) => [task.id, task.assignee_id]), [[taskId, null]], "the revoked operator's task is unassigned");
    const timeline = () =>
      call("GET", `/v1/orders/${orderId}`, { token: owner.token }).then((a) => (a.body.timeline as TimelineEntry[]).filter((e) => e.kind.startsWith("fulfillment.")));
    t.match(
      await timeline(),
      [
        { kind: "fulfillment.taken", actor_id: `staff:${ada.id}` },
        {
          kind: "fulfillment.released",
          actor_id: `staff:${owner.id}`,
          detail: { task_id: taskId, assignee_id: null, previous_assignee_id: ada.id, reason: "ada left the company" },
        },
      ],
      "the release is on the order's timeline with the owner and the reason",
    );
    const released = await eventually(
      async () => (bobSocket.messages as Message[]).filter((m) => m.type === "event" && m.event?.type === "FulfillmentTaskAssigned"),
      (ms) => ms.some((m) => m.event?.data.assignee_id === null),
    );
    t.same(released.at(-1)?.event?.data, { task_id: taskId, order_id: orderId, assignee_id: null }, "the release is published on the store's fulfillment channel");
    t.equal(released.at(-1)?.channel, pool, "on the store's pool of unassigned tasks");
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/take`, { token: bob.token }), { status: 200, body: { assignee_id: bob.id } }, "another operator takes it");

    // Idempotent: revoking a role not held answers 204 and changes nothing.
    const before = (await timeline()).length;
    t.equal((await revoke(owner.token, storeId, ada.id, "warehouse_operator", "again")).status, 204, "revoking again succeeds");
    t.equal((await revoke(owner.token, storeId, buyer.id, "support", "never staff")).status, 204, "revoking a role never held succeeds");
    t.equal((await timeline()).length, before, "and changes nothing");
    t.same(
      ((await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token })).body.data as Array<{ assignee_id: string | null }>).map((x) => x.assignee_id),
      [bob.id],
      "another operator's task stays theirs",
    );

    // Support: the revoked clerk no longer reads the store's orders.
    t.equal((await call("GET", `/v1/orders/${orderId}`, { token: clerk.token })).status, 200);
    t.equal((await revoke(owner.token, storeId, clerk.id, "support", "moved to sales")).status, 204);
    t.equal((await call("GET", `/v1/orders/${orderId}`, { token: clerk.token })).status, 404, "a revoked clerk reads no order");
    const clerkDropped = await eventually(
      async () => (clerkSocket.messages as Message[]).filter((m) => m.type === "unsubscribed"),
      (ms) => ms.length >= 1,
    );
    t.same(clerkDropped.map((m) => [m.channel, m.reason]), [[orderChannel, "access_revoked"]], "and their order subscription ends");

    // The last owner cannot lose `owner`; with a second owner, the first can.
    const last = await revoke(owner.token, storeId, owner.id, "owner", "stepping down");
    t.match(last, { status: 409, body: { code: "last_store_owner" } }, "the last owner keeps owner");
    t.equal((await call("POST", `/v1/stores/${storeId}/staff`, { token: owner.token, body: { user_id: bob.id, role: "owner" } })).status, 201);
    t.equal((await revoke(owner.token, storeId, bob.id, "warehouse_operator", "an owner packs anyway")).status, 204);
    t.same(
      ((await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token })).body.data as Array<{ assignee_id: string | null }>).map((x) => x.assignee_id),
      [bob.id],
      "an owner who loses warehouse_operator keeps their tasks (owners hold every role)",
    );
    t.equal((await revoke(bob.token, storeId, owner.id, "owner", "sold the shop")).status, 204, "a second owner revokes the first");
    t.match(
      await call("POST", `/v1/stores/${storeId}/staff`, { token: owner.token, body: { user_id: ada.id, role: "support" } }),
      { status: 403 },
      "the former owner no longer grants roles (still staff by their other roles)",
    );
    t.match(await revoke(bob.token, storeId, bob.id, "owner", "me too"), { status: 409, body: { code: "last_store_owner" } });
  }),
);
