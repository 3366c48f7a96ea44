/** Request shapes of the order, cancellation and shipment endpoints (snake_case); responses derive from core/commerce/model. */
import { Schema } from "effect";
import { pageQueryFields } from "../Pagination.js";
import { idOf } from "../RouteIds.js";
import { CartId, LocationId } from "../../../core/commerce/model/Ids.js";

/** A provider payment method token (`pm_...`); the error message never repeats the value sent. */
export const PaymentMethodToken = Schema.String.pipe(
  Schema.filter((s) => /^pm_[A-Za-z0-9_]{1,64}$/.test(s) || "must be a provider payment method token (pm_...)"),
);

/** The minimized shipping address. */
export const ShippingAddressBody = Schema.Struct({
  name: Schema.String,
  line1: Schema.String,
  line2: Schema.optional(Schema.NullOr(Schema.String)),
  city: Schema.String,
  postcode: Schema.String,
  country: Schema.String.annotations({ description: "ISO 3166-1 alpha-2, e.g. GB" }),
});

/** Body of POST /v1/orders (checkout). */
export const CheckoutBody = Schema.Struct({
  cart_id: idOf(CartId),
  payment_method: PaymentMethodToken,
  shipping_address: ShippingAddressBody,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  promotion_codes: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(40))).pipe(Schema.maxItems(10))),
  expected_total_minor: Schema.optional(Schema.NullOr(Schema.Int)).annotations({
    description:
      "The total the customer confirmed; when the server's total differs, 409 price_changed with a diff. Without it, a catalog price change since the cart was last shown is 409 price_changed too (confirm by sending the new total).",
  }),
});

/** Query of GET /v1/orders. */
export const OrderListQuery = Schema.Struct(pageQueryFields);

/** Query of GET /v1/orders/:id/timeline. */
export const OrderTimelineQuery = Schema.Struct(pageQueryFields);

/** Body of POST /v1/orders/:id/cancel (support must give a reason). */
export const CancelOrderBody = Schema.Struct({ reason: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))) });

/** Body of POST /v1/orders/:id/shipments. */
export const DispatchBody = Schema.Struct({ location_id: idOf(LocationId), carrier: Schema.String, tracking_number: Schema.String });
