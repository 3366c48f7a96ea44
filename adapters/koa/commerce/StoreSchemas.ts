/**
 * Request shapes of the store endpoints (snake_case, docs/conventions.md, HTTP): stores, staff
 * roles, locations, promotions. Responses are the derived wire shapes of core/commerce/model.
 */
import { Schema } from "effect";
import { RequestTime } from "../RequestTime.js";
import { idOf } from "../RouteIds.js";
import { CartId, FulfillmentTaskId, OrderId, ProductId, ReturnId, StoreId, VariantId } from "../../../core/commerce/model/Ids.js";
import { pageQueryFields } from "../Pagination.js";
import { PromotionKind } from "../../../core/commerce/model/Promotion.js";
import { StaffRoleName } from "../../../core/commerce/model/StaffRole.js";


/** `:id` of a store. */
export const StoreParams = Schema.Struct({ id: idOf(StoreId) });
/** `:id` of a cart. */
export const CartParams = Schema.Struct({ id: idOf(CartId) });
/** `:id` of a product. */
export const ProductParams = Schema.Struct({ id: idOf(ProductId) });
/** `:id` of a variant. */
export const VariantParams = Schema.Struct({ id: idOf(VariantId) });
/** `:id` of an order. */
export const OrderParams = Schema.Struct({ id: idOf(OrderId) });
/** `:id` of a fulfillment task. */
export const FulfillmentTaskParams = Schema.Struct({ id: idOf(FulfillmentTaskId) });
/** `:id` of a return. */
export const ReturnParams = Schema.Struct({ id: idOf(ReturnId) });

/** A user id (the `sub` of a token): a UUID. */
export const UserId = Schema.String.pipe(
  Schema.filter((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) || "must be a UUID"),
);

/** Body of POST /v1/stores. */
export const CreateStoreBody = Schema.Struct({
  name: Schema.String,
  currency: Schema.String,
  tax_rate_basis_points: Schema.optional(Schema.Int).annotations({ description: "One tax rate for the store, 0 to 10000 (default 0)." }),
});

/** Body of POST /v1/stores/:id/staff. */
export const GrantStaffBody = Schema.Struct({ user_id: UserId, role: StaffRoleName });

/** Path of DELETE /v1/stores/:id/staff/:user_id/roles/:role. */
export const StaffRoleParams = Schema.Struct({ id: idOf(StoreId), user_id: UserId, role: StaffRoleName });

/** Query of DELETE /v1/stores/:id/staff/:user_id/roles/:role. */
export const RevokeStaffQuery = Schema.Struct({
  reason: Schema.optional(Schema.String).annotations({ description: "Why the role is revoked (1 to 1000 characters, required), kept in the store's audit." }),
});

/** Body of POST /v1/stores/:id/locations. */
export const CreateLocationBody = Schema.Struct({ name: Schema.String });

/** Body of POST /v1/stores/:id/promotions. */
export const CreatePromotionBody = Schema.Struct({
  code: Schema.optional(Schema.NullOr(Schema.String)),
  kind: PromotionKind,
  value: Schema.Int.annotations({ description: "Whole percent (1 to 100) or minor units off." }),
  automatic: Schema.optional(Schema.Boolean),
  starts_at: Schema.optional(Schema.NullOr(RequestTime)),
  ends_at: Schema.optional(Schema.NullOr(RequestTime)),
  usage_limit: Schema.optional(Schema.NullOr(Schema.Int)),
});

/** Query of GET /v1/stores/:id/fulfillment-tasks. */
export const FulfillmentTaskListQuery = Schema.Struct(pageQueryFields);

/** Body of POST /v1/fulfillment-tasks/:id/assign (store owner). */
export const AssignFulfillmentTaskBody = Schema.Struct({
  user_id: UserId,
  reason: Schema.String.annotations({ description: "Why the task moves (1 to 1000 characters), written on the order's timeline." }),
});

/** Body of POST /v1/fulfillment-tasks/:id/release (store owner). */
export const ReleaseFulfillmentTaskBody = Schema.Struct({
  reason: Schema.String.annotations({ description: "Why the task is released (1 to 1000 characters), written on the order's timeline." }),
});
