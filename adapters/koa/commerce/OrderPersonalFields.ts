/**
 * An order's personal fields (`email`, `shipping_address`: sealed at rest on the order) are never
 * kept with a stored answer (the idempotency record holds it in clear for at least 24 hours): a
 * route answering the order lists them as `unstored`, and a replay reads them from the order as
 * it is now (minimized, once guest retention has run).
 */
import { Effect, Schema } from "effect";
import { loadVisibleOrder } from "../../../core/commerce/Access.js";
import { orderActorOf } from "../../../core/commerce/Callers.js";
import { OrderId } from "../../../core/commerce/model/Ids.js";
import { OrderWire } from "../../../core/commerce/model/Order.js";
import type { Principal } from "../../../ports/Principal.js";

const encodeOrder = Schema.encodeSync(OrderWire);

/** The wire names of the fields a route answering an order leaves unstored. */
export const orderPersonalFieldNames = ["email", "shipping_address"];

/** The fields again, as the order holds them now (the `reissue` of such a route). */
export const reissueOrderPersonalFields = (principal: Principal, stored: Readonly<Record<string, unknown>>) => {
  const orderId = OrderId.make(String(stored["id"]));
  return Effect.flatMap(orderActorOf(principal, orderId, "support"), (actor) => loadVisibleOrder(actor, orderId)).pipe(
    Effect.map((order): Readonly<Record<string, unknown>> => {
      const wire = encodeOrder(order);
      return { email: wire.email, shipping_address: wire.shipping_address };
    }),
  );
};
