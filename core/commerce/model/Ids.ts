/**
 * The ids of the e-commerce module's records, branded so that one record's id cannot be passed
 * where another's is expected (docs/decisions.md, Module pattern (finish): branded ids). Ids are
 * made by the `Ids` port as plain strings and branded once where a record is created
 * (`OrderId.make(yield* ids.next)`); route parameters, bodies, stored rows, events and job
 * payloads decode into the brands. An id is any string here (what the routes accept; ids the
 * server makes are UUIDv7), so an unknown or malformed id still answers 404. User ids (customers,
 * staff, actors) are the host's and the payment module's ids are its own: they stay unbranded here.
 */
import { Schema } from "effect";

/** A store's id (the tenant key). */
export const StoreId = Schema.String.pipe(Schema.brand("StoreId"));
export type StoreId = typeof StoreId.Type;

/** A fulfillment location's id. */
export const LocationId = Schema.String.pipe(Schema.brand("LocationId"));
export type LocationId = typeof LocationId.Type;

/** A product's id. */
export const ProductId = Schema.String.pipe(Schema.brand("ProductId"));
export type ProductId = typeof ProductId.Type;

/** A variant's (sellable SKU's) id. */
export const VariantId = Schema.String.pipe(Schema.brand("VariantId"));
export type VariantId = typeof VariantId.Type;

/** A promotion's id. */
export const PromotionId = Schema.String.pipe(Schema.brand("PromotionId"));
export type PromotionId = typeof PromotionId.Type;

/** A cart's id. */
export const CartId = Schema.String.pipe(Schema.brand("CartId"));
export type CartId = typeof CartId.Type;

/** An order's id. */
export const OrderId = Schema.String.pipe(Schema.brand("OrderId"));
export type OrderId = typeof OrderId.Type;

/** An order line's id. */
export const OrderLineId = Schema.String.pipe(Schema.brand("OrderLineId"));
export type OrderLineId = typeof OrderLineId.Type;

/** An order timeline entry's id. */
export const TimelineEntryId = Schema.String.pipe(Schema.brand("TimelineEntryId"));
export type TimelineEntryId = typeof TimelineEntryId.Type;

/** A stock reservation's id. */
export const ReservationId = Schema.String.pipe(Schema.brand("ReservationId"));
export type ReservationId = typeof ReservationId.Type;

/** An audited stock adjustment's id. */
export const StockAdjustmentId = Schema.String.pipe(Schema.brand("StockAdjustmentId"));
export type StockAdjustmentId = typeof StockAdjustmentId.Type;

/** An audited staff role revocation's id. */
export const StaffRevocationId = Schema.String.pipe(Schema.brand("StaffRevocationId"));
export type StaffRevocationId = typeof StaffRevocationId.Type;

/** A shipment's id. */
export const ShipmentId = Schema.String.pipe(Schema.brand("ShipmentId"));
export type ShipmentId = typeof ShipmentId.Type;

/** A return's id. */
export const ReturnId = Schema.String.pipe(Schema.brand("ReturnId"));
export type ReturnId = typeof ReturnId.Type;

/** A fulfillment task's id. */
export const FulfillmentTaskId = Schema.String.pipe(Schema.brand("FulfillmentTaskId"));
export type FulfillmentTaskId = typeof FulfillmentTaskId.Type;

/** A note's id: a shopper's free text on an order, kept apart from the timeline that refers to it. */
export const OrderNoteId = Schema.String.pipe(Schema.brand("OrderNoteId"));
export type OrderNoteId = typeof OrderNoteId.Type;
