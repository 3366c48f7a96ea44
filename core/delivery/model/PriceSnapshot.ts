/**
 * The priced drop-off that a quote calculates and an order keeps unchanged: where and when it
 * goes and what it costs (total = subtotal + delivery fee + service fee + tax; prices exclude tax).
 * Shared fields of Quote and Order, declared once.
 */
import { Schema } from "effect";
import { Currency } from "../../kernel/Money.js";
import { retainedBriefly } from "../../kernel/RetainedBriefly.js";
import { Latitude, Longitude } from "./Geo.js";

const Minor = Schema.Int.pipe(Schema.nonNegative());

export const PriceSnapshotFields = {
  /** The customer's drop-off: kept precise only for the location retention (LocationRetention.ts). */
  dropoffLat: retainedBriefly(Latitude),
  dropoffLng: retainedBriefly(Longitude),
  dropoffAddress: retainedBriefly(Schema.String),
  subtotalMinor: Minor,
  deliveryFeeMinor: Minor,
  serviceFeeMinor: Minor,
  taxMinor: Minor,
  totalMinor: Minor,
  currency: Currency,
  /** The slot a scheduled order is delivered in (its start); null: as soon as possible. */
  scheduledFor: Schema.NullOr(Schema.DateFromSelf),
};

/**
 * The drop-off address of a quote, order or delivery finished longer than the location retention
 * (its point is then kept to 3 decimals, about 100 m): the retention pass writes it, the database
 * allows only that (delivery migration 11).
 */
export const redactedDropoffAddress = "[REDACTED]";
