/**
 * Every read of an order's timeline is a bounded page (conventions, "Every list, upload, body and
 * batch has a bound"; docs/decisions.md, "An order's timeline is a paged list"). The orders
 * repository offers no read of a whole timeline: its only timeline read takes a limit and a keyset
 * cursor, and answers at most the limit, in entry order. SQLite and Postgres.
 */
import t from "tap";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { commerceRuntime, confirmedOrder, forEachCommerceDialect, seedStore } from "./support.js";

t.test("every read of an order's timeline is a bounded page: the repository reads no whole timeline", (t) =>
  forEachCommerceDialect(t, "timeline reads bounded", async (t, db) => {
    const c = commerceRuntime(t, db);
    const orders = await c.run(OrdersRepository);
    const reads = Object.keys(orders).filter((name) => /timeline/i.test(name) && name !== "appendTimeline");
    t.same(reads, ["timelinePage"], "the only timeline read is the page");

    const { store, variant } = await seedStore(c, { stock: 2 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const orderId = placed.order.id;
    const first = await c.run(orders.timelinePage(orderId, { afterId: null, withFulfillment: true, limit: 1 }));
    t.equal(first.length, 1, "a page holds at most its limit");
    const rest = await c.run(orders.timelinePage(orderId, { afterId: first[0]!.id, withFulfillment: true, limit: 200 }));
    t.ok(rest.length > 0, "the order's timeline continues past the first page");
    t.ok(rest.every((entry) => entry.id > first[0]!.id), "the next page starts after the cursor");
  }),
);
