/**
 * Tokens and personal data are kept no longer than needed (brief lens; spec: non-goal "storing raw
 * card data", Authentication: sensitive data). A quote's placement keeps the customer's
 * payment-method token only while the authorization may be sent again or released: once its
 * order's payment is final (captured, voided, declined), or its release was confirmed by the
 * provider, the retention pass replaces it with "[REDACTED]" (delivery migration 16). An order
 * still authorized, and a release the provider has not confirmed, keep theirs. Before, every
 * token was kept for good, and the database refused to remove one.
 */
import t from "tap";
import { Effect } from "effect";
import { redactSettledPaymentMethods } from "../../core/delivery/PaymentMethodRetention.js";
import { releasePlacement } from "../../core/delivery/PlacementRelease.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { advanceDelivery, authorizedOrder, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, quoteFor } from "./support.js";

const tokenOf = async (db: SqlDatabase, quoteId: string) =>
  String((await db.db.selectFrom("dl_quote_placements").select("payment_method").where("quote_id", "=", quoteId).executeTakeFirstOrThrow()).payment_method);

t.test("a placement's payment-method token is redacted once nothing can send its authorization again", (t) =>
  forEachDeliveryDialect(t, "payment method retention", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    // Delivered and captured: final.
    const { placed: done, accepted, courier } = await pickedUpOrder(rt, "cust-1", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    // Authorized, not final.
    const open = await authorizedOrder(rt, "cust-2", fixture);
    // A placement whose order was never written, released and confirmed; and one whose release the provider has not confirmed.
    const start = async (customer: string) => {
      const quote = await quoteFor(rt, customer, fixture);
      const now = new Date();
      await rt.run(
        Effect.flatMap(OrdersRepository, (o) =>
          o.startPlacement({ quoteId: quote.id, merchantId: "merchant_1", paymentMethod: "pm_card_visa", state: "authorizing", startedAt: now, updatedAt: now, releaseConfirmedAt: null }),
        ),
      );
      return quote.id;
    };
    const confirmed = await start("cust-3");
    await rt.run(releasePlacement(confirmed as never));
    const unconfirmed = await start("cust-4");
    rt.gateway.failNext("release", 1);
    t.match(await rt.attempt(releasePlacement(unconfirmed as never)), { ok: false }, "the provider is down for this release");

    const redacted = await rt.run(redactSettledPaymentMethods);
    t.equal(redacted, 2, "two tokens redacted");
    t.equal(await tokenOf(db, done.order.quoteId), "[REDACTED]", "a captured order's placement");
    t.equal(await tokenOf(db, confirmed), "[REDACTED]", "a confirmed release");
    t.equal(await tokenOf(db, open.order.quoteId), "pm_card_visa", "an authorized order keeps its token");
    t.equal(await tokenOf(db, unconfirmed), "pm_card_visa", "an unconfirmed release keeps its token (the job sends it again)");
    t.equal(await rt.run(redactSettledPaymentMethods), 0, "the next pass redacts nothing more");

    // The release job runs again once the provider is back: confirmed, then redacted.
    await rt.run(releasePlacement(unconfirmed as never));
    t.equal(await rt.run(redactSettledPaymentMethods), 1);
    t.equal(await tokenOf(db, unconfirmed), "[REDACTED]");

    // The database allows exactly that change.
    await t.rejects(db.db.updateTable("dl_quote_placements").set({ payment_method: "pm_other" }).where("quote_id", "=", open.order.quoteId).execute(), "another token");
    await t.rejects(db.db.updateTable("dl_quote_placements").set({ payment_method: "[REDACTED]", merchant_id: "m" }).where("quote_id", "=", open.order.quoteId).execute(), "redaction with another change");
    const authorizing = await start("cust-5");
    await t.rejects(db.db.updateTable("dl_quote_placements").set({ payment_method: "[REDACTED]" }).where("quote_id", "=", authorizing).execute(), "an authorizing placement keeps its token");
  }),
);
