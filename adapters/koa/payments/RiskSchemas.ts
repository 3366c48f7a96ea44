/** Request schemas of the risk analyst routes. */
import { Schema } from "effect";
import { HoldReason } from "../../../core/payments/model/RiskHold.js";
import { pageQueryFields } from "../Pagination.js";

/** Body of placing or releasing a hold: why (audited). */
export const HoldBody = Schema.Struct({ reason: HoldReason });

/** Query of GET /v1/risk/holds: every hold (default) or the active ones only, in keyset pages. */
export const ListHoldsQuery = Schema.Struct({
  ...pageQueryFields,
  status: Schema.optional(Schema.Literal("active", "all")).annotations({ description: "`active`: holds not released yet; `all` (default): every hold." }),
});
