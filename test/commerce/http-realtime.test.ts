/**
 * Realtime over the reference server's ws endpoint (SQLite and Postgres): the store's
 * `shop-store` channel carries its order events to its owners; another store's
 * staff are refused it and the order's `shop-order` channel, and so is another customer.
 * (The walk-through test shows the customer's own `shop-order` subscription receiving
 * ShipmentDispatched.)
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

t.test("realtime: the store's owner channel receives its order events; another store's or another customer's channels are refused", (t) =>
  forEachDialectConfig(t, "commerce channels", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith, socket } = await startCommerceServer(t, dialect);
    const { owner, storeId, variantId } = await setupStore({ stock: 5 });
    const other = await setupStore({ stock: 1 });
    const customer = await user();
    const ownerSocket = await socket(owner.token);
    ownerSocket.send({ type: "subscribe", channel: `shop-store:${storeId}` });
    const intruder = await socket(other.owner.token);
    intruder.send({ type: "subscribe", channel: `shop-store:${storeId}` });
    await eventually(async () => ownerSocket.messages, (m) => m.some((x) => x.type === "subscribed"));
    const placed = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(await cartWith(customer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    const stranger = await user();
    const snoop = await socket(stranger.token);
    snoop.send({ type: "subscribe", channel: `shop-order:${orderId}` });
    intruder.send({ type: "subscribe", channel: `shop-order:${orderId}` });
    const confirmed = await eventually(
      async () => ownerSocket.messages.find((m) => m.type === "event" && (m.event as { type: string }).type === "OrderConfirmed"),
      (m) => m !== undefined,
    );
    t.match(confirmed, { channel: `shop-store:${storeId}`, event: { tenant_id: storeId, data: { order_id: orderId } } }, "the owner sees the confirmed order");
    await eventually(async () => [...intruder.messages, ...snoop.messages].filter((m) => m.type === "error").length, (n) => n >= 3);
    t.same(
      intruder.messages.filter((m) => m.type === "error").map((m) => m.channel),
      [`shop-store:${storeId}`, `shop-order:${orderId}`],
      "another store's staff are refused both channels",
    );
    t.same(snoop.messages.filter((m) => m.type === "error").map((m) => m.channel), [`shop-order:${orderId}`], "another customer is refused the order's channel");
    t.notOk([...intruder.messages, ...snoop.messages].some((m) => m.type === "event"), "no event leaks");
  }),
);
