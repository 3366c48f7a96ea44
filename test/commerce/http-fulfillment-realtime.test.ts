/**
 * An operator is told a task was assigned to them (spec, Authentication 2: warehouse operators
 * work their "assigned fulfillment tasks"), over the reference server's realtime endpoint: the
 * owner's assignment, a release and a take reach the operators as FulfillmentTaskAssigned: an
 * assignment or a take on the assignee's own `shop-fulfillment:<store>:<user>` channel, a release on
 * the store's pool `shop-fulfillment:<store>` that every operator follows, so each sees what their
 * list shows without asking for it again; another store's staff and support, who are refused
 * those channels, receive nothing, and neither
 * does the order's customer on the order's channel (who holds the order is the store's business).
 * SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Message = { type: string; channel?: string; event?: { type: string; actor_id: string | null; data: Record<string, unknown> } };

t.test("realtime: an assigned, released or taken fulfillment task reaches its assignee's fulfillment channel (a release the store's pool), and no one who may not see the store", (t) =>
  forEachDialectConfig(t, "task assignment realtime", async (t, _config, dialect) => {
    const { call, staffedStore, cartWith, socket } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, other, ada, bob, clerk, buyer } = await staffedStore();
    const adaSocket = await socket(ada.token);
    const bobSocket = await socket(bob.token);
    const intruder = await socket(other.owner.token);
    const clerkSocket = await socket(clerk.token);
    const channelOf = (userId: string) => `shop-fulfillment:${storeId}:${userId}`;
    const pool = `shop-fulfillment:${storeId}`;
    for (const [s, userId] of [[adaSocket, ada.id], [bobSocket, bob.id], [intruder, other.owner.id], [clerkSocket, clerk.id]] as const) {
      s.send({ type: "subscribe", channel: channelOf(userId) });
      s.send({ type: "subscribe", channel: pool });
    }
    await eventually(async () => [adaSocket, bobSocket], (ss) => ss.every((s) => s.messages.filter((m) => m.type === "subscribed").length === 2));

    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const buyerSocket = await socket(buyer.token);
    buyerSocket.send({ type: "subscribe", channel: `shop-order:${orderId}` });
    const listed = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 1,
    );
    const taskId = String((listed.body.data as Array<{ id: string }>)[0]!.id);

    const assignments = (messages: ReadonlyArray<Message>) =>
      messages.filter((m) => m.type === "event" && m.event?.type === "FulfillmentTaskAssigned").map((m) => ({ channel: m.channel, ...m.event!.data }));
    const heard = (s: { messages: ReadonlyArray<unknown> }, n: number) =>
      eventually(async () => assignments(s.messages as Message[]), (a) => a.length >= n);

    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/assign`, { token: owner.token, body: { user_id: ada.id, reason: "ada packs teapots" } }), { status: 200 });
    t.same(
      await heard(adaSocket, 1),
      [{ channel: channelOf(ada.id), task_id: taskId, order_id: orderId, assignee_id: ada.id }],
      "the assignee is told the task is theirs",
    );

    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/release`, { token: owner.token, body: { reason: "ada is off sick" } }), { status: 200 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${taskId}/take`, { token: bob.token }), { status: 200 });
    const move = (channel: string, assignee: string | null) => ({ channel, task_id: taskId, order_id: orderId, assignee_id: assignee });
    const byChannel = (moves: ReadonlyArray<{ channel?: string | undefined }>) => [...moves].sort((a, b) => String(a.channel).localeCompare(String(b.channel)));
    t.same(byChannel(await heard(bobSocket, 2)), byChannel([move(pool, null), move(channelOf(bob.id), bob.id)]), "every operator hears the release on the pool, and the taker their take");
    t.same(byChannel(await heard(adaSocket, 2)), byChannel([move(channelOf(ada.id), ada.id), move(pool, null)]), "the former assignee hears the release, not who took it then");

    // The order's channel carries the dispatch that follows, never the assignments before it.
    t.match(
      await call("POST", `/v1/orders/${orderId}/shipments`, { token: bob.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `T-${orderId}` } }),
      { status: 201 },
    );
    await eventually(async () => buyerSocket.messages as Message[], (ms) => ms.some((m) => m.type === "event" && m.event?.type === "ShipmentDispatched"));
    t.same(assignments(buyerSocket.messages as Message[]), [], "the customer's order channel carries no assignment");
    const dispatched = (buyerSocket.messages as Message[]).find((m) => m.type === "event" && m.event?.type === "ShipmentDispatched");
    t.equal((dispatched?.event as { actor_id?: unknown } | undefined)?.actor_id, null, "nor who in the warehouse shipped it (no actor on commerce channels)");
    t.notOk(JSON.stringify(buyerSocket.messages).includes(bob.id), "the operator's account id is nowhere in what the customer received");

    await eventually(async () => [intruder, clerkSocket], (ss) => ss.every((s) => s.messages.some((m) => m.type === "error")));
    t.same(assignments([...intruder.messages, ...clerkSocket.messages] as Message[]), [], "staff who may not watch the store receive none");
    t.notOk([...intruder.messages, ...clerkSocket.messages].some((m) => m.type === "event"), "nor any other event of it");
  }),
);
