/**
 * A warehouse operator learns no more over realtime than over HTTP (security audit, second round,
 * F1; docs/decisions.md: warehouse operators do not read orders): they are refused an order's
 * `shop-order` channel and the owners' `shop-store` channel; their own `shop-fulfillment:<store>:<user>`
 * channel and the store's pool `shop-fulfillment:<store>` carry what their task list shows (task,
 * order, status, assignee: their tasks, and the unassigned ones), never an order's customer, total
 * or payment reference, including for an order cancelled before anyone took its task; another
 * operator's tasks are not on them, and a task leaving their list is told only that.
 * Owners and support keep what they read over HTTP. SQLite and Postgres, over the ws endpoint.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Message = { type: string; channel?: string; event?: { type: string; actor_id: string | null; data: Record<string, unknown> } };

t.test("realtime: a warehouse operator is refused order and store-wide order events and receives only the fulfillment facts of their task list", (t) =>
  forEachDialectConfig(t, "warehouse realtime scope", async (t, _config, dialect) => {
    const { call, staffedStore, cartWith, socket } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, ada, clerk, buyer } = await staffedStore();
    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const second = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const cancelledId = String(second.body.id);
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 2,
    );
    const tasks = listed.body.data as Array<{ id: string; order_id: string }>;
    const taskOf = (order: string) => tasks.find((task) => task.order_id === order)!.id;
    t.equal((await call("GET", `/v1/orders/${orderId}`, { token: ada.token })).status, 404, "over HTTP the operator does not read the order");

    const adaSocket = await socket(ada.token);
    const ownerSocket = await socket(owner.token);
    const clerkSocket = await socket(clerk.token);
    const fulfillment = `shop-fulfillment:${storeId}:${ada.id}`;
    const pool = `shop-fulfillment:${storeId}`;
    for (const channel of [`shop-order:${orderId}`, `shop-store:${storeId}`, fulfillment, pool]) {
      adaSocket.send({ type: "subscribe", channel, since: 0 });
    }
    ownerSocket.send({ type: "subscribe", channel: `shop-store:${storeId}`, since: 0 });
    ownerSocket.send({ type: "subscribe", channel: `shop-order:${orderId}`, since: 0 });
    clerkSocket.send({ type: "subscribe", channel: `shop-order:${orderId}`, since: 0 });
    clerkSocket.send({ type: "subscribe", channel: `shop-fulfillment:${storeId}:${clerk.id}`, since: 0 });
    clerkSocket.send({ type: "subscribe", channel: pool, since: 0 });
    const answered = (s: { messages: ReadonlyArray<unknown> }, n: number) =>
      eventually(async () => (s.messages as Message[]).filter((m) => m.type === "subscribed" || m.type === "error"), (ms) => ms.length >= n);
    await Promise.all([answered(adaSocket, 4), answered(ownerSocket, 2), answered(clerkSocket, 3)]);
    const refusedTo = (s: { messages: ReadonlyArray<unknown> }) => (s.messages as Message[]).filter((m) => m.type === "error").map((m) => m.channel).sort();
    t.same(refusedTo(adaSocket), [`shop-order:${orderId}`, `shop-store:${storeId}`].sort(), "the operator is refused the order's and the owners' channels");
    t.same(refusedTo(ownerSocket), [], "the owner watches the store and the order");
    t.same(refusedTo(clerkSocket), [pool, `shop-fulfillment:${storeId}:${clerk.id}`].sort(), "support watches the order, not the warehouse");

    t.match(await call("POST", `/v1/orders/${cancelledId}/cancel`, { token: buyer.token, key: freshKey(), body: {} }), { status: 202 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskOf(orderId)}/take`, { token: ada.token }), { status: 200 });
    t.match(
      await call("POST", `/v1/orders/${orderId}/shipments`, { token: ada.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${orderId}` } }),
      { status: 201 },
    );

    const facts = (s: { messages: ReadonlyArray<unknown> }): Array<Record<string, unknown>> =>
      (s.messages as Message[]).filter((m) => m.type === "event").map((m) => ({ channel: m.channel, type: m.event!.type, ...m.event!.data }));
    const expected = [
      { channel: pool, type: "FulfillmentTaskStatusChanged", task_id: taskOf(orderId), order_id: orderId, status: "open" },
      { channel: pool, type: "FulfillmentTaskStatusChanged", task_id: taskOf(cancelledId), order_id: cancelledId, status: "open" },
      { channel: pool, type: "FulfillmentTaskStatusChanged", task_id: taskOf(cancelledId), order_id: cancelledId, status: "done" },
      { channel: pool, type: "FulfillmentTaskLeftList", task_id: taskOf(orderId), operator_id: null },
      { channel: fulfillment, type: "FulfillmentTaskAssigned", task_id: taskOf(orderId), order_id: orderId, assignee_id: ada.id },
      { channel: fulfillment, type: "FulfillmentTaskStatusChanged", task_id: taskOf(orderId), order_id: orderId, status: "done" },
    ];
    const heard = await eventually(async () => facts(adaSocket), (fs) => fs.length >= expected.length);
    // In order on each channel (two channels of one socket are delivered independently).
    const byOrder = (fs: ReadonlyArray<Record<string, unknown>>, order: string) =>
      [fulfillment, pool].flatMap((channel) => fs.filter((f) => f.task_id === taskOf(order) && f.channel === channel));
    t.same(byOrder(heard, orderId), byOrder(expected, orderId), "the operator hears the task open, leave the unassigned ones, taken and done");
    t.same(byOrder(heard, cancelledId), byOrder(expected, cancelledId), "and the other order's task open and done, not its cancellation");
    t.equal(heard.length, expected.length, "and nothing else");
    const wire = JSON.stringify(adaSocket.messages);
    for (const leaked of [buyer.id, "customer_id", "total_minor", "payment_intent_ref", "captured_minor"]) {
      t.notOk(wire.includes(leaked), `nothing the operator received names ${leaked === buyer.id ? "the customer" : leaked}`);
    }
    const statusActors = (adaSocket.messages as Message[]).filter((m) => m.event?.type === "FulfillmentTaskStatusChanged").map((m) => m.event!.actor_id);
    t.same([...new Set(statusActors)], [null], "a task's status names nobody: not who dispatched or cancelled (commerce channels show no actor)");

    const ownerHeard = await eventually(async () => facts(ownerSocket), (fs) => fs.some((f) => f.type === "OrderCaptured"));
    t.ok(ownerHeard.some((f) => f.channel === `shop-store:${storeId}` && f.type === "OrderConfirmed" && f.customer_id === buyer.id), "the owner's store channel keeps every order event");
    const clerkHeard = await eventually(async () => facts(clerkSocket), (fs) => fs.some((f) => f.type === "ShipmentDispatched"));
    t.ok(clerkHeard.every((f) => f.channel === `shop-order:${orderId}`), "support hears the order on its channel");
  }),
);

t.test("realtime: an operator hears only the tasks of their own list and the store's unassigned ones; one that leaves their list is told only that it left", (t) =>
  forEachDialectConfig(t, "per-operator fulfillment channel", async (t, _config, dialect) => {
    const { call, staffedStore, cartWith, socket } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, other, ada, bob, clerk, buyer } = await staffedStore();
    const channelOf = (userId: string) => `shop-fulfillment:${storeId}:${userId}`;
    const adaSocket = await socket(ada.token);
    const bobSocket = await socket(bob.token);
    const clerkSocket = await socket(clerk.token);
    const intruder = await socket(other.owner.token);
    adaSocket.send({ type: "subscribe", channel: channelOf(ada.id) });
    bobSocket.send({ type: "subscribe", channel: channelOf(bob.id) });
    adaSocket.send({ type: "subscribe", channel: channelOf(bob.id) });
    const pool = `shop-fulfillment:${storeId}`;
    adaSocket.send({ type: "subscribe", channel: pool });
    bobSocket.send({ type: "subscribe", channel: pool });
    clerkSocket.send({ type: "subscribe", channel: channelOf(clerk.id) });
    clerkSocket.send({ type: "subscribe", channel: pool });
    intruder.send({ type: "subscribe", channel: channelOf(other.owner.id) });
    intruder.send({ type: "subscribe", channel: pool });
    const answers = (s: { messages: ReadonlyArray<unknown> }, n: number) =>
      eventually(async () => (s.messages as Message[]).filter((m) => m.type === "subscribed" || m.type === "error"), (ms) => ms.length >= n);
    const [adaAnswers, bobAnswers, clerkAnswers, intruderAnswers] = await Promise.all([answers(adaSocket, 3), answers(bobSocket, 2), answers(clerkSocket, 2), answers(intruder, 2)]);
    const outcome = (ms: ReadonlyArray<Message>) => ms.map((m) => [m.channel, m.type === "error" ? (m as { code?: string }).code : m.type]).sort();
    t.same(
      outcome(adaAnswers),
      [[channelOf(ada.id), "subscribed"], [channelOf(bob.id), "not_found"], [pool, "subscribed"]].sort(),
      "an operator follows their own channel and the store's pool; another operator's is refused",
    );
    t.same(outcome(bobAnswers), [[channelOf(bob.id), "subscribed"], [pool, "subscribed"]].sort());
    t.same(outcome(clerkAnswers), [[channelOf(clerk.id), "not_found"], [pool, "not_found"]].sort(), "a non-operator of the store cannot subscribe to their own or the pool");
    t.same(outcome(intruderAnswers), [[channelOf(other.owner.id), "not_found"], [pool, "not_found"]].sort(), "nor can another store's owner");

    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 1,
    );
    const taskId = String((listed.body.data as Array<{ id: string }>)[0]!.id);
    const facts = (s: { messages: ReadonlyArray<unknown> }): Array<Record<string, unknown>> =>
      (s.messages as Message[]).filter((m) => m.type === "event").map((m) => ({ channel: m.channel, type: m.event!.type, ...m.event!.data }));
    const opened = { type: "FulfillmentTaskStatusChanged", task_id: taskId, order_id: orderId, status: "open" };
    t.same(await eventually(async () => facts(adaSocket), (fs) => fs.length >= 1), [{ channel: pool, ...opened }], "an unassigned task reaches every operator on the pool");
    t.same(await eventually(async () => facts(bobSocket), (fs) => fs.length >= 1), [{ channel: pool, ...opened }]);

    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/take`, { token: ada.token }), { status: 200 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/assign`, { token: owner.token, body: { user_id: bob.id, reason: "bob packs teapots" } }), { status: 200 });
    t.match(
      await call("POST", `/v1/orders/${orderId}/shipments`, { token: bob.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${orderId}` } }),
      { status: 201 },
    );
    const left = { type: "FulfillmentTaskLeftList", task_id: taskId };
    // In order on each channel (two channels of one socket are delivered independently).
    const perChannel = (fs: ReadonlyArray<Record<string, unknown>>, own: string) => [pool, own].flatMap((channel) => fs.filter((f) => f.channel === channel));
    const bobHeard = await eventually(async () => facts(bobSocket), (fs) => fs.some((f) => f.status === "done") && fs.length >= 4);
    t.same(
      perChannel(bobHeard, channelOf(bob.id)),
      [
        { channel: pool, ...opened },
        { channel: pool, ...left, operator_id: null },
        { channel: channelOf(bob.id), type: "FulfillmentTaskAssigned", task_id: taskId, order_id: orderId, assignee_id: bob.id },
        { channel: channelOf(bob.id), ...opened, status: "done" },
      ],
      "the other operator hears the task leave the unassigned ones (not who took it), then that it is theirs, and its close",
    );
    const adaHeard = await eventually(async () => facts(adaSocket), (fs) => fs.some((f) => f.type === left.type && f.operator_id === ada.id) && fs.length >= 4);
    t.same(
      perChannel(adaHeard, channelOf(ada.id)),
      [
        { channel: pool, ...opened },
        { channel: pool, ...left, operator_id: null },
        { channel: channelOf(ada.id), type: "FulfillmentTaskAssigned", task_id: taskId, order_id: orderId, assignee_id: ada.id },
        { channel: channelOf(ada.id), ...left, operator_id: ada.id },
      ],
      "the previous holder hears only that the task left their list (after taking it from the unassigned ones)",
    );
    const events = (s: { messages: ReadonlyArray<unknown> }) => JSON.stringify((s.messages as Message[]).filter((m) => m.type === "event"));
    t.notOk(events(adaSocket).includes(bob.id), "no event the previous holder received names who holds it now");
    t.notOk(events(bobSocket).includes(ada.id), "nor does any event the other operator received name who took it");
    t.same([...new Set((adaSocket.messages as Message[]).filter((m) => m.type === "event").map((m) => m.event!.actor_id))], [null], "and no actor");
  }),
);
