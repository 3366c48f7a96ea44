/**
 * Commerce migration 25: returns whose refund the payment refused before migration 23 get that
 * stage. The confirmation job then recorded a refusal only on the timeline and in an event
 * receipt (consumer `commerce.return-refunds`, event `refund_failed:<return id>`) and left the
 * return refund_requested with nothing left to move it; such returns move to refund_failed now
 * (same attempt), from which support requests the refund again.
 */
import type { Migration } from "../../Migration.js";

const statement = `UPDATE shop_returns SET status = 'refund_failed', version = version + 1
  WHERE status = 'refund_requested'
    AND EXISTS (SELECT 1 FROM shop_event_receipts r WHERE r.consumer = 'commerce.return-refunds' AND r.event_id = 'refund_failed:' || shop_returns.id)`;

export const commerceMigration0025RefusedRefundsMoved: Migration = {
  version: 25,
  name: "refused_refunds_moved",
  sqlite: [statement],
  postgres: [statement],
};
