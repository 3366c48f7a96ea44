/** Request shapes of the catalog and inventory endpoints (snake_case); responses derive from core/commerce/model. */
import { Schema } from "effect";
import { VariantStatus } from "../../../core/commerce/model/Variant.js";
import { pageQueryFields } from "../Pagination.js";
import { idOf } from "../RouteIds.js";
import { LocationId, StoreId, VariantId } from "../../../core/commerce/model/Ids.js";

/** Body of POST /v1/stores/:id/products. */
export const CreateProductBody = Schema.Struct({
  title: Schema.String,
  description: Schema.optional(Schema.NullOr(Schema.String)),
  variants: Schema.Array(
    Schema.Struct({
      sku: Schema.String,
      price_minor: Schema.Int,
      status: Schema.optional(VariantStatus).annotations({ description: "Purchasable (active) unless told otherwise." }),
    }),
  ),
});

/** Query of GET /v1/products. */
export const ProductListQuery = Schema.Struct({
  store_id: idOf(StoreId),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))).annotations({ description: "Full-text search; every word matches as a prefix." }),
  ...pageQueryFields,
});

/** Body of PATCH /v1/variants/:id. */
export const PatchVariantBody = Schema.Struct({
  price_minor: Schema.optional(Schema.Int),
  status: Schema.optional(VariantStatus),
});

/** Body of POST /v1/inventory/adjustments. */
export const StockAdjustmentBody = Schema.Struct({
  variant_id: idOf(VariantId),
  location_id: idOf(LocationId),
  delta: Schema.Int,
  reason: Schema.String,
});
