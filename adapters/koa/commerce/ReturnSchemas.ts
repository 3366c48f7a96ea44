/** Request shapes of the return endpoints (snake_case); responses are the derived Return wire shape. */
import { Schema } from "effect";
import { idOf } from "../RouteIds.js";
import { LocationId, OrderId, OrderLineId } from "../../../core/commerce/model/Ids.js";

/** Body of POST /v1/returns. */
export const CreateReturnBody = Schema.Struct({
  order_id: idOf(OrderId),
  lines: Schema.Array(Schema.Struct({ order_line_id: idOf(OrderLineId), quantity: Schema.Int })).pipe(Schema.maxItems(100)),
  reason: Schema.String,
});

/** Body of POST /v1/returns/:id/stage: the next inspection stage, with the staff member's reason. */
export const ReturnStageBody = Schema.Struct({
  to: Schema.Literal("received", "restocked", "quarantined"),
  reason: Schema.String,
  location_id: Schema.optional(idOf(LocationId)).annotations({ description: "Where restocked units go (default: where they shipped from)." }),
});

/** Body of POST /v1/returns/:id/refund. */
export const ReturnRefundBody = Schema.Struct({ reason: Schema.String });
