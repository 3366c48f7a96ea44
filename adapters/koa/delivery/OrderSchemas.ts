/** Request bodies of the customer's order endpoints (quote, place). */
import { Schema } from "effect";
import { RequestTime } from "../RequestTime.js";
import { RouteId } from "../RouteIds.js";

const Id = RouteId;

const QuoteLineBody = Schema.Struct({
  item_id: Id,
  quantity: Schema.Int,
  modifier_ids: Schema.optional(Schema.Array(Id).pipe(Schema.maxItems(50))),
});

/** Body of POST /orders/quote. */
export const QuoteBody = Schema.Struct({
  restaurant_id: Id,
  menu_version: Schema.Int,
  lines: Schema.Array(QuoteLineBody).pipe(Schema.maxItems(100)),
  dropoff: Schema.Struct({ lat: Schema.Number, lng: Schema.Number, address: Schema.String }),
  /** A delivery slot (a quarter hour, 30 minutes to 7 days ahead); omitted or null: as soon as possible. */
  scheduled_for: Schema.optional(Schema.NullOr(RequestTime)),
});

/** A provider payment method token (`pm_card_visa` with the development sandbox); an error never repeats the value. */
export const PaymentMethodToken = Schema.String.pipe(
  Schema.filter((s) => /^pm_[A-Za-z0-9_]{1,64}$/.test(s) || "must be a provider payment method token (pm_...)"),
);

/** Body of POST /orders. */
export const PlaceOrderBody = Schema.Struct({ quote_id: Id, payment_method: PaymentMethodToken });
