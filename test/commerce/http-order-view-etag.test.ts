/**
 * The order view's ETag validates the whole answer (docs/conventions.md, Optimistic concurrency;
 * known gap "the order view's ETag is the order's version"). GET /v1/orders/:id embeds the first
 * page of the timeline, which gains entries (a fulfillment task's assignment and release) while
 * the order's version stays: the ETag is weak, `W/"<version>.<digest of the answer>"`, and
 * changes with the page. A page that was exactly full gains a next page while its entries stay:
 * the ETag changes too; so does a guest order's view when retention clears its texts. The version
 * stays readable by the one If-Match parser (ETag.ts). SQLite and Postgres.
 */
import t from "tap";
import { parseIfMatch } from "../../adapters/koa/ETag.js";
import { orderViewEtag } from "../../adapters/koa/commerce/OrderViewEtag.js";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";
import { commerceRuntime, forEachCommerceDialect, guestOrder, seedStore } from "./support.js";

type Entry = { id: string; kind: string };
type Task = { id: string; order_id: string };

t.test("the order view's ETag changes when its embedded timeline page gains an entry without a version bump", (t) =>
  forEachDialectConfig(t, "order view etag", async (t, _config, dialect) => {
    const pageSize = 6;
    const { call, staffedStore, cartWith } = await startCommerceServer(t, dialect, {}, {}, { limits: { listDefault: pageSize } });
    const { owner, storeId, variantId, ada, clerk, buyer } = await staffedStore();
    const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
    t.equal(placed.status, 201);
    const orderId = String(placed.body.id);
    const tasks = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as Task[] | undefined)?.some((task) => task.order_id === orderId) === true,
    );
    const taskId = (tasks.body.data as Task[]).find((task) => task.order_id === orderId)!.id;
    const view = (token: string) => call("GET", `/v1/orders/${orderId}`, { token });

    const before = await view(clerk.token);
    const shopperBefore = await view(buyer.token);
    t.equal(before.status, 200);
    const etagBefore = before.headers.get("etag") ?? "";
    t.match(etagBefore, /^W\/"\d+\.\d+"$/, "the view's ETag is weak: the version and a digest of the answer");
    t.equal(parseIfMatch(etagBefore), before.body.version, "sent back as If-Match it names the order's version");
    t.equal((await view(clerk.token)).headers.get("etag"), etagBefore, "an unchanged view answers the same ETag");

    const assigned = await call("POST", `/v1/fulfillment-tasks/${taskId}/assign`, { token: owner.token, body: { user_id: ada.id, reason: "morning shift" } });
    t.equal(assigned.status, 200);
    const after = await view(clerk.token);
    t.equal(after.body.version, before.body.version, "the assignment leaves the order's version");
    t.ok((after.body.timeline as Entry[]).some((e) => e.kind === "fulfillment.assigned"), "the page shows the new entry");
    t.not(after.headers.get("etag"), etagBefore, "the view's ETag changes with its page");
    t.equal((await view(buyer.token)).headers.get("etag"), shopperBefore.headers.get("etag"), "the shopper's view, which leaves out the warehouse's entries, keeps its ETag");

    // Fill the staff's first page exactly, then add one entry past it: the page's entries stay, its next cursor appears.
    let full = after;
    while ((full.body.timeline as Entry[]).length < pageSize) {
      const moved = await call("POST", `/v1/fulfillment-tasks/${taskId}/${(full.body.timeline as Entry[]).at(-1)!.kind === "fulfillment.assigned" ? "release" : "assign"}`, {
        token: owner.token,
        body: (full.body.timeline as Entry[]).at(-1)!.kind === "fulfillment.assigned" ? { reason: "break" } : { user_id: ada.id, reason: "back" },
      });
      if (moved.status !== 200) throw new Error(`task move answered ${moved.status}: ${JSON.stringify(moved.body)}`);
      full = await view(clerk.token);
    }
    t.equal(full.body.timeline_next_cursor, null, "the page is the whole timeline");
    const last = (full.body.timeline as Entry[]).at(-1)!;
    const moved =
      last.kind === "fulfillment.assigned"
        ? await call("POST", `/v1/fulfillment-tasks/${taskId}/release`, { token: owner.token, body: { reason: "end of shift" } })
        : await call("POST", `/v1/fulfillment-tasks/${taskId}/assign`, { token: owner.token, body: { user_id: ada.id, reason: "late shift" } });
    t.equal(moved.status, 200);
    const grown = await view(clerk.token);
    t.same((grown.body.timeline as Entry[]).map((e) => e.id), (full.body.timeline as Entry[]).map((e) => e.id), "the first page keeps its entries");
    t.type(grown.body.timeline_next_cursor, "string", "and now has a next page");
    t.equal(grown.body.version, full.body.version);
    t.not(grown.headers.get("etag"), full.headers.get("etag"), "the view's ETag changes when its page gains a next page");
  }),
);

t.test("the order view's ETag changes when guest retention clears the order's texts without a version bump", (t) =>
  forEachCommerceDialect(t, "order view etag retention", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 2 });
    const { guest, orderId } = await guestOrder(c, store.id, variant.id);
    await c.run(cancelOrder(guest, orderId, { reason: "call me on 555-0100" }));
    const support = { kind: "staff" as const, userId: ownerId, role: "support" as const };
    const before = await c.run(getOrder(support, orderId));
    const year = await c.later(366 * 24 * 60 * 60 * 1000, applyRetention);
    t.equal(year.guestOrders, 1, "the guest order is minimized");
    const after = await c.run(getOrder(support, orderId));
    t.equal(after.version, before.version, "minimizing leaves the order's version");
    t.not(after.email, before.email, "the view changed (its e-mail is gone)");
    t.not(orderViewEtag(after), orderViewEtag(before), "and so did its ETag");
  }),
);
