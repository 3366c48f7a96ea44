/** A warehouse's task to pick and ship one confirmed order (one per order), done when the order is dispatched. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

export const FulfillmentTaskStatus = Schema.Literal("open", "done");
export type FulfillmentTaskStatus = typeof FulfillmentTaskStatus.Type;

export const FulfillmentTask = Schema.Struct({
  id: Schema.String,
  storeId: Schema.String,
  orderId: Schema.String,
  status: FulfillmentTaskStatus,
  createdAt: Schema.DateFromSelf,
});
export type FulfillmentTask = typeof FulfillmentTask.Type;

export const FulfillmentTaskWire = wireShape(FulfillmentTask);
