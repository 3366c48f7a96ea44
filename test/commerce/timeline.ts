/**
 * An order's whole timeline for a test's assertions, read as readers read it: `timelinePage` after
 * page, in entry order, the store's view (fulfillment entries included).
 */
import { Effect } from "effect";
import type { OrderTimelineEntry } from "../../core/commerce/model/Order.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";

export const timelineEntries = (orderId: string, pageSize = 50) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const entries: OrderTimelineEntry[] = [];
    for (;;) {
      const page = yield* orders.timelinePage(orderId, { afterId: entries.at(-1)?.id ?? null, withFulfillment: true, limit: pageSize });
      entries.push(...page);
      if (page.length < pageSize) return entries;
    }
  });
