/** Routes of stores: create (payments merchant provisioned), staff roles, locations, promotions, fulfillment tasks. */
import { Effect, Schema } from "effect";
import { userOf } from "../../../core/commerce/Callers.js";
import { createLocation, createStore, grantStaffRole } from "../../../core/commerce/CreateStore.js";
import { openFulfillmentTasks } from "../../../core/commerce/FulfillmentTasks.js";
import { createPromotion } from "../../../core/commerce/Promotions.js";
import { FulfillmentTaskWire } from "../../../core/commerce/model/FulfillmentTask.js";
import { LocationWire } from "../../../core/commerce/model/Location.js";
import { PromotionWire } from "../../../core/commerce/model/Promotion.js";
import { StaffRoleWire } from "../../../core/commerce/model/StaffRole.js";
import { StoreWire } from "../../../core/commerce/model/Store.js";
import { defineRoute } from "../Route.js";
import { CreateLocationBody, CreatePromotionBody, CreateStoreBody, GrantStaffBody, StoreParams } from "./StoreSchemas.js";

const tags = ["commerce"];

/** POST /v1/stores — the caller becomes its owner (every staff role); a payments merchant is provisioned. */
export const createStoreRoute = defineRoute({
  method: "POST",
  path: "/v1/stores",
  operationId: "createStore",
  summary: "Create a store (the caller becomes its owner and holds every staff role)",
  description: "The store is provisioned a payments merchant of its own: its orders' payments, captures and refunds are that merchant's.",
  tags,
  auth: "required",
  body: CreateStoreBody,
  responses: { 201: StoreWire },
  problems: [403, 422],
  handler: ({ principal, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      createStore(userId, {
        name: body.name,
        currency: body.currency,
        ...(body.tax_rate_basis_points === undefined ? {} : { taxRateBasisPoints: body.tax_rate_basis_points }),
      }),
    ).pipe(Effect.map((store) => ({ status: 201, body: store }))),
});

/** POST /v1/stores/:id/staff — the owner grants a staff role. */
export const grantStaffRoute = defineRoute({
  method: "POST",
  path: "/v1/stores/:id/staff",
  operationId: "grantStoreStaffRole",
  summary: "Grant a staff role in the store (owner)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: StoreParams,
  body: GrantStaffBody,
  responses: { 201: StaffRoleWire },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) => grantStaffRole(userId, params.id, { userId: body.user_id, role: body.role })).pipe(
      Effect.map((role) => ({ status: 201, body: role })),
    ),
});

/** POST /v1/stores/:id/locations — a warehouse operator adds a fulfillment location. */
export const createLocationRoute = defineRoute({
  method: "POST",
  path: "/v1/stores/:id/locations",
  operationId: "createStoreLocation",
  summary: "Add a fulfillment location (warehouse operator)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: StoreParams,
  body: CreateLocationBody,
  responses: { 201: LocationWire },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) => createLocation(userId, params.id, { name: body.name })).pipe(
      Effect.map((location) => ({ status: 201, body: location })),
    ),
});

/** POST /v1/stores/:id/promotions — a catalog manager creates a promotion rule. */
export const createPromotionRoute = defineRoute({
  method: "POST",
  path: "/v1/stores/:id/promotions",
  operationId: "createPromotion",
  summary: "Create a percentage or fixed-amount promotion, by code or automatic (catalog manager)",
  description: "Valid in [starts_at, ends_at); usage_limit orders at most, enforced under concurrency at checkout. 409 promotion_code_taken when the store already has the code.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: StoreParams,
  body: CreatePromotionBody,
  responses: { 201: PromotionWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      createPromotion(userId, params.id, {
        code: body.code ?? null,
        kind: body.kind,
        value: body.value,
        automatic: body.automatic ?? false,
        startsAt: body.starts_at ?? null,
        endsAt: body.ends_at ?? null,
        usageLimit: body.usage_limit ?? null,
      }),
    ).pipe(Effect.map((promotion) => ({ status: 201, body: promotion }))),
});

/** GET /v1/stores/:id/fulfillment-tasks — the store's open fulfillment tasks, oldest first. */
export const listFulfillmentTasksRoute = defineRoute({
  method: "GET",
  path: "/v1/stores/:id/fulfillment-tasks",
  operationId: "listFulfillmentTasks",
  summary: "List the store's open fulfillment tasks, oldest first (warehouse operator)",
  tags,
  auth: "required",
  params: StoreParams,
  responses: { 200: Schema.Struct({ data: Schema.Array(FulfillmentTaskWire) }) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    Effect.flatMap(userOf(principal), (userId) => openFulfillmentTasks(userId, params.id)).pipe(
      Effect.map((tasks) => ({ status: 200, body: { data: tasks } })),
    ),
});

/** Store routes. */
export const storeRoutes = [createStoreRoute, grantStaffRoute, createLocationRoute, createPromotionRoute, listFulfillmentTasksRoute];
