/**
 * Conventions ("Every list, upload, body and batch has a bound"; Lists: {data, next_cursor},
 * `limit` default 50 at most 200, keyset cursors, authorization filters before the limit). An
 * order's timeline grows with every fulfillment assignment and release: GET
 * /v1/orders/:id/timeline pages it in entry order, and the order view embeds only its first page
 * with `timeline_next_cursor`. A shopper never sees `fulfillment.*` entries and still gets full
 * pages (the filter is in the query); another customer, guest or store gets 404. SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Entry = { id: string; kind: string; detail: Record<string, unknown> };
type Task = { id: string; order_id: string };

t.test("an order's timeline is a bounded keyset page; the order view carries its first page and the cursor", (t) =>
  forEachDialectConfig(t, "order timeline pages", async (t, _config, dialect) => {
    const { call, user, staffedStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, variantId, locationId, ada, clerk, buyer, other } = await staffedStore();
    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    t.equal(placed.status, 201);
    const orderId = String(placed.body.id);
    const tasks = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as Task[] | undefined)?.some((task) => task.order_id === orderId) === true,
    );
    const taskId = (tasks.body.data as Task[]).find((task) => task.order_id === orderId)!.id;

    // 26 assign/release cycles: 52 fulfillment entries, more than a default page, then a dispatch.
    const cycles = 26;
    for (let i = 0; i < cycles; i++) {
      const assigned = await call("POST", `/v1/fulfillment-tasks/${taskId}/assign`, { token: owner.token, body: { user_id: ada.id, reason: `shift ${i}` } });
      const released = await call("POST", `/v1/fulfillment-tasks/${taskId}/release`, { token: owner.token, body: { reason: `break ${i}` } });
      if (assigned.status !== 200 || released.status !== 200) throw new Error(`cycle ${i}: ${assigned.status} ${released.status}`);
    }
    const dispatched = await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "DHL", tracking_number: "T-PAGES" } });
    t.equal(dispatched.status, 201);

    const walk = async (token: string, limit: number) => {
      const entries: Entry[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = await call("GET", `/v1/orders/${orderId}/timeline?${query}`, { token });
        if (page.status !== 200) throw new Error(`timeline page answered ${page.status}: ${JSON.stringify(page.body)}`);
        const data = page.body.data as Entry[];
        entries.push(...data);
        sizes.push(data.length);
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null);
      return { entries, sizes };
    };

    // Staff walk the whole timeline exactly once, in entry order.
    const staff = await walk(clerk.token, 7);
    const ids = staff.entries.map((e) => e.id);
    t.equal(new Set(ids).size, ids.length, "no entry is answered twice");
    t.same(ids, [...ids].sort(), "entries come in id order");
    t.equal(staff.entries.filter((e) => e.kind === "fulfillment.assigned").length, cycles, "every assignment is on a page");
    t.equal(staff.entries.filter((e) => e.kind === "fulfillment.released").length, cycles, "every release is on a page");
    t.ok(staff.entries.some((e) => e.kind === "order.dispatched"), "the last moves are reached");
    t.same(staff.sizes.slice(0, -1), staff.sizes.slice(0, -1).map(() => 7), "every page but the last is full");
    t.match(staff.entries.find((e) => e.kind === "fulfillment.released")?.detail, { reason: "break 0" }, "texts are put back as the order view does");
    const ownerWalk = await walk(owner.token, 200);
    t.same(ownerWalk.entries.map((e) => e.id), ids, "the store owner reads the same timeline in one page");
    const operatorRead = await call("GET", `/v1/orders/${orderId}`, { token: ada.token });
    const operatorList = await call("GET", `/v1/orders/${orderId}/timeline`, { token: ada.token });
    t.equal(operatorList.status, operatorRead.status, "a warehouse operator reaches the list exactly as the order read");

    // The shopper: no fulfillment entries, and full pages (filtered before the limit).
    const shopper = await walk(buyer.token, 2);
    const visible = staff.entries.filter((e) => !e.kind.startsWith("fulfillment."));
    t.same(shopper.entries.map((e) => e.id), visible.map((e) => e.id), "the shopper reads every entry but the warehouse's");
    t.same(shopper.sizes.slice(0, -1), shopper.sizes.slice(0, -1).map(() => 2), "the shopper's pages are full: the filter comes before the limit");
    t.ok(shopper.sizes.length >= 2, "the shopper's timeline spans pages");

    // Bounds and bad input.
    for (const query of ["limit=0", "limit=201", "limit=x", "cursor=garbage"]) {
      const refused = await call("GET", `/v1/orders/${orderId}/timeline?${query}`, { token: buyer.token });
      t.equal(refused.status, 400, `${query} is refused`);
      t.match(refused.headers.get("content-type"), /application\/problem\+json/);
    }
    const byDefault = await call("GET", `/v1/orders/${orderId}/timeline`, { token: clerk.token });
    t.equal((byDefault.body.data as Entry[]).length, 50, "a page holds 50 entries unless told");
    t.type(byDefault.body.next_cursor, "string");

    // Nobody else reaches the list.
    const stranger = await user();
    const guest = String((await call("POST", "/v1/carts", { body: { store_id: storeId } })).body.cart_token);
    for (const [who, token] of [["another customer", stranger.token], ["another store's owner", other.owner.token], ["a guest of another cart", guest]] as const) {
      t.match(await call("GET", `/v1/orders/${orderId}/timeline`, { token }), { status: 404, body: { code: "not_found" } }, `${who} gets 404`);
    }
    t.match(await call("GET", `/v1/orders/unknown-order/timeline`, { token: buyer.token }), { status: 404 });

    // The order view embeds the first page and the cursor of the next.
    const staffView = await call("GET", `/v1/orders/${orderId}`, { token: clerk.token });
    t.same((staffView.body.timeline as Entry[]).map((e) => e.id), ids.slice(0, 50), "staff see the first 50 entries in the view");
    t.equal(staffView.body.timeline_next_cursor, byDefault.body.next_cursor, "with the cursor of the list's next page");
    const next = await call("GET", `/v1/orders/${orderId}/timeline?cursor=${encodeURIComponent(String(staffView.body.timeline_next_cursor))}`, { token: clerk.token });
    t.same((next.body.data as Entry[]).map((e) => e.id), ids.slice(50), "the view's cursor continues the list");
    const shopperView = await call("GET", `/v1/orders/${orderId}`, { token: buyer.token });
    t.same((shopperView.body.timeline as Entry[]).map((e) => e.id), visible.map((e) => e.id), "an ordinary timeline is whole in the view");
    t.equal(shopperView.body.timeline_next_cursor, null);
  }),
);
