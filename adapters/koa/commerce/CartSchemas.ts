/** Request shapes of the cart endpoints (snake_case); the answer is the priced CartView. */
import { Schema } from "effect";
import { Id } from "./StoreSchemas.js";

/** Body of POST /v1/carts. */
export const CreateCartBody = Schema.Struct({ store_id: Id });

/** Body of POST /v1/carts/:id/lines (quantity 0 removes the line). */
export const CartLineBody = Schema.Struct({ variant_id: Id, quantity: Schema.Int });
