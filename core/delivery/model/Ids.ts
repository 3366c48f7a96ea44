/**
 * The ids of the delivery module's records, branded so that one record's id cannot be passed
 * where another's is expected (docs/decisions.md, "Module pattern (finish)"). Ids are made by the
 * `Ids` port as plain strings and branded once, where a record is created
 * (`DeliveryId.make(yield* ids.next)`); route parameters, stored rows and event and job payloads
 * decode into the brands. An id is any non-empty string here (what the routes accept; ids the
 * server makes are UUIDv7): a malformed id still answers 404.
 */
import { Schema } from "effect";

/** A restaurant's id (the tenant key of restaurant-side records and events). */
export const RestaurantId = Schema.String.pipe(Schema.brand("RestaurantId"));
export type RestaurantId = typeof RestaurantId.Type;

/** A menu item's id (stable across menu versions). */
export const MenuItemId = Schema.String.pipe(Schema.brand("MenuItemId"));
export type MenuItemId = typeof MenuItemId.Type;

/** A quote's id. */
export const QuoteId = Schema.String.pipe(Schema.brand("QuoteId"));
export type QuoteId = typeof QuoteId.Type;

/** An order's id (named apart from e-commerce's orders). */
export const OrderId = Schema.String.pipe(Schema.brand("DeliveryOrderId"));
export type OrderId = typeof OrderId.Type;

/** A delivery's id. */
export const DeliveryId = Schema.String.pipe(Schema.brand("DeliveryId"));
export type DeliveryId = typeof DeliveryId.Type;

/** A courier's id (the `courier_id` deliveries carry). */
export const CourierId = Schema.String.pipe(Schema.brand("CourierId"));
export type CourierId = typeof CourierId.Type;

/** A courier offer's id. */
export const CourierOfferId = Schema.String.pipe(Schema.brand("CourierOfferId"));
export type CourierOfferId = typeof CourierOfferId.Type;

/** A settlement entry's id. */
export const SettlementEntryId = Schema.String.pipe(Schema.brand("SettlementEntryId"));
export type SettlementEntryId = typeof SettlementEntryId.Type;

/** A payable's id. */
export const PayableId = Schema.String.pipe(Schema.brand("PayableId"));
export type PayableId = typeof PayableId.Type;

/** A location sample's id. */
export const LocationSampleId = Schema.String.pipe(Schema.brand("LocationSampleId"));
export type LocationSampleId = typeof LocationSampleId.Type;

/** A chat message's id. */
export const ChatMessageId = Schema.String.pipe(Schema.brand("ChatMessageId"));
export type ChatMessageId = typeof ChatMessageId.Type;

/** A substitution's id. */
export const SubstitutionId = Schema.String.pipe(Schema.brand("SubstitutionId"));
export type SubstitutionId = typeof SubstitutionId.Type;

/** A support refund's id. */
export const RefundId = Schema.String.pipe(Schema.brand("DeliveryRefundId"));
export type RefundId = typeof RefundId.Type;
