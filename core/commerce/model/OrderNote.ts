/**
 * A shopper's free text on an order (the reason given with a cancellation), kept apart from the
 * append-only timeline, whose entry refers to it by id (`note_id`), so guest retention can clear
 * it: `body` is null from then on.
 */
import { Schema } from "effect";
import { OrderId, OrderNoteId, StoreId } from "./Ids.js";

export const OrderNote = Schema.Struct({
  id: OrderNoteId,
  storeId: StoreId,
  orderId: OrderId,
  body: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  clearedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type OrderNote = typeof OrderNote.Type;
