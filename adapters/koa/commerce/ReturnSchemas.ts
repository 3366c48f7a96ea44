/** Request shapes of the return endpoints (snake_case); responses are the derived Return wire shape. */
import { Schema } from "effect";
import { Text, textIdOf } from "./Text.js";
import { LocationId, OrderId, OrderLineId } from "../../../core/commerce/model/Ids.js";

/** Body of POST /v1/returns. */
export const CreateReturnBody = Schema.Struct({
  order_id: textIdOf(OrderId),
  lines: Schema.Array(Schema.Struct({ order_line_id: textIdOf(OrderLineId), quantity: Schema.Int })).pipe(Schema.maxItems(100)),
  reason: Text,
});

/** Body of POST /v1/returns/:id/stage: the next inspection stage, with the staff member's reason. */
export const ReturnStageBody = Schema.Struct({
  to: Schema.Literal("received", "restocked", "quarantined"),
  reason: Text,
  location_id: Schema.optional(textIdOf(LocationId)).annotations({ description: "Where restocked units go (default: where they shipped from)." }),
});

/** Body of POST /v1/returns/:id/refund. */
export const ReturnRefundBody = Schema.Struct({ reason: Text });
