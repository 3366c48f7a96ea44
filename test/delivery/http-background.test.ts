/**
 * Background work on the reference server with the real in-process payment module (SQLite and
 * Postgres): the acceptance deadline is a durable timer that cancels an unaccepted order and
 * voids its authorization (accepting afterwards answers 409). (A 202 payment_pending order is
 * resolved by the lookup job once the payment module's reconciliation knows the outcome, which
 * takes its ambiguity window; the core tests prove the job with a gateway that answers at once.)
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { eventually, freshKey, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`the acceptance deadline cancels an unaccepted order and voids its authorization [${dialect}]`, async (t) => {
    const { as } = await startDeliveryServer(t, dialect, { DELIVERY_ACCEPT_DEADLINE_SECONDS: "1" });
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const place = async (paymentMethod: string) =>
      customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: paymentMethod }, freshKey());

    const late = await place("pm_card_visa");
    t.equal(late.status, 201);
    const cancelled = await eventually(
      () => customer.get(`/orders/${String(late.body.id)}`),
      (a) => a.body.status === "cancelled" && a.body.payment_state === "voided",
      10_000,
    );
    t.match(cancelled.body, { status: "cancelled", payment_state: "voided" }, "the deadline cancelled the order and voided the authorization");
    t.match(await owner.post(`/restaurant-orders/${String(late.body.id)}/accept`, { prep_time_minutes: 5 }), { status: 409, body: { code: "order_not_acceptable" } });

  });
}
