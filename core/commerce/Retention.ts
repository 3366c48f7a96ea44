/**
 * Retention (spec: abandoned carts are hard-deleted after retention; guest data has retention).
 * A daily self-rescheduling durable job keyed by day: open carts untouched for 30 days and
 * checked-out carts (their guest token digests included) after 90 days are deleted; guest orders
 * in a final state are minimized after 365 days (e-mail removed, address reduced to its
 * country). Orders themselves are never deleted. The digests of checkouts' risk signals (account,
 * client network, e-mail) and their locks are deleted a day after the checkout that wrote or took
 * them last: they count declines for an hour. Work is done in bounded batches, one
 * transaction each. Periods: docs/decisions.md, E-commerce.
 */
import { Duration, Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { Transactions } from "../../ports/Transactions.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

export const retention = {
  abandonedCart: Duration.days(30),
  checkedOutCart: Duration.days(90),
  guestOrderData: Duration.days(365),
  checkoutRiskSignals: Duration.days(1),
} as const;

const batch = 500;

/** One retention pass; answers what it removed. */
export const applyRetention = Effect.gen(function* () {
  const at = yield* now;
  const before = (d: Duration.Duration) => new Date(at.getTime() - Duration.toMillis(d));
  const carts = yield* CartsRepository;
  const orders = yield* OrdersRepository;
  const risk = yield* CheckoutRiskRepository;
  const tx = yield* Transactions;
  const drain = (step: Effect.Effect<number>) =>
    Effect.gen(function* () {
      let total = 0;
      for (;;) {
        const n = yield* tx.run(step);
        total += n;
        if (n < batch) return total;
      }
    });
  return {
    abandonedCarts: yield* drain(carts.deleteStale("open", before(retention.abandonedCart), batch)),
    checkedOutCarts: yield* drain(carts.deleteStale("checked_out", before(retention.checkedOutCart), batch)),
    guestOrders: yield* drain(orders.redactGuestOrders(before(retention.guestOrderData), batch, at)),
    checkoutRiskSignals: yield* drain(risk.deleteRecordedBefore(before(retention.checkoutRiskSignals), batch)),
    checkoutRiskLocks: yield* drain(risk.deleteLocksBefore(before(retention.checkoutRiskSignals), batch)),
  };
}).pipe(withSpan("commerce.applyRetention"));

/** The daily job (key `day-<yyyy-mm-dd>`); each run schedules the next day's after it finishes. */
export const retentionJob: JobDefinition<{ readonly day: string }, CommerceServices> = defineJob({
  kind: "commerce.retention",
  payload: Schema.Struct({ day: Schema.String }),
  handle: ({ day }) =>
    Effect.gen(function* () {
      yield* applyRetention;
      const next = new Date(Date.parse(`${day}T03:00:00Z`) + Duration.toMillis(Duration.days(1)));
      yield* retentionJob.schedule({ day: next.toISOString().slice(0, 10) }, { runAt: next, key: `day-${next.toISOString().slice(0, 10)}` });
    }),
});

/** Schedules the next daily retention run (03:00 UTC) after `nowMs`; a no-op when that day's run exists. */
export const scheduleRetention = (nowMs: number) => {
  const dayMs = Duration.toMillis(Duration.days(1));
  let runAt = Math.floor(nowMs / dayMs) * dayMs + 3 * 60 * 60_000;
  if (runAt <= nowMs) runAt += dayMs;
  const day = new Date(runAt).toISOString().slice(0, 10);
  return retentionJob.schedule({ day }, { runAt: new Date(runAt), key: `day-${day}` });
};
