/** Request shapes of the cart endpoints (snake_case); the answer is the priced CartView. */
import { Schema } from "effect";
import { idOf } from "../RouteIds.js";
import { StoreId, VariantId } from "../../../core/commerce/model/Ids.js";

/** Body of POST /v1/carts. */
export const CreateCartBody = Schema.Struct({ store_id: idOf(StoreId) });

/** Body of POST /v1/carts/:id/lines (quantity 0 removes the line). */
export const CartLineBody = Schema.Struct({ variant_id: idOf(VariantId), quantity: Schema.Int });
