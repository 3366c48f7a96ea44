/**
 * A warehouse's task to pick and ship one confirmed order (one per order), done when the order is
 * dispatched (or its cancellation requested). `assigneeId` is the warehouse operator holding it
 * (taken by them or assigned by the store owner), null while it waits to be taken.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { FulfillmentTaskId, OrderId, StoreId } from "./Ids.js";

export const FulfillmentTaskStatus = Schema.Literal("open", "done");
export type FulfillmentTaskStatus = typeof FulfillmentTaskStatus.Type;

export const FulfillmentTask = Schema.Struct({
  id: FulfillmentTaskId,
  storeId: StoreId,
  orderId: OrderId,
  status: FulfillmentTaskStatus,
  assigneeId: Schema.NullOr(Schema.String),
  assignedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type FulfillmentTask = typeof FulfillmentTask.Type;

export const FulfillmentTaskWire = wireShape(FulfillmentTask);
