/** Routes of stores: create (payments merchant provisioned), staff roles (grant, revoke), locations, promotions, fulfillment tasks (list, take, assign, release). */
import { Effect, Schema } from "effect";
import { userOf } from "../../../core/commerce/Callers.js";
import { createLocation, createStore, grantStaffRole, listStaffRoles } from "../../../core/commerce/CreateStore.js";
import { revokeStaffRole } from "../../../core/commerce/RevokeStaffRole.js";
import { assignFulfillmentTask, listFulfillmentTasks, takeFulfillmentTask } from "../../../core/commerce/FulfillmentTasks.js";
import { createPromotion } from "../../../core/commerce/Promotions.js";
import { FulfillmentTaskWire } from "../../../core/commerce/model/FulfillmentTask.js";
import { LocationWire } from "../../../core/commerce/model/Location.js";
import { PromotionWire } from "../../../core/commerce/model/Promotion.js";
import { StaffRoleWire } from "../../../core/commerce/model/StaffRole.js";
import { StoreWire } from "../../../core/commerce/model/Store.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import {
  AssignFulfillmentTaskBody,
  CreateLocationBody,
  CreatePromotionBody,
  CreateStoreBody,
  FulfillmentTaskListQuery,
  FulfillmentTaskParams,
  GrantStaffBody,
  ReleaseFulfillmentTaskBody,
  RevokeStaffQuery,
  StaffRoleParams,
  StoreParams,
} from "./StoreSchemas.js";

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

/** GET /v1/stores/:id/staff — the store's staff roles (owner), keyset pages by user id and role. */
export const listStaffRoute = defineRoute({
  method: "GET",
  path: "/v1/stores/:id/staff",
  operationId: "listStoreStaffRoles",
  summary: "List the store's staff roles (owner)",
  description: "One row per user and role (`user_id`, `role`, `granted_by`, `created_at`), ordered by user id then role.",
  tags,
  auth: "required",
  pagination: true,
  params: StoreParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(StaffRoleWire) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    Effect.flatMap(userOf(principal), (userId) => listStaffRoles(userId, params.id, page)).pipe(Effect.map((roles) => ({ status: 200, body: roles }))),
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

/** DELETE /v1/stores/:id/staff/:user_id/roles/:role?reason= — the owner revokes a staff role (idempotent). */
export const revokeStaffRoute = defineRoute({
  method: "DELETE",
  path: "/v1/stores/:id/staff/:user_id/roles/:role",
  operationId: "revokeStoreStaffRole",
  summary: "Revoke a staff role in the store, with a reason (owner; idempotent)",
  description:
    "Takes the role away and audits it with the owner and the reason; revoking a role the user does not hold answers 204 and changes nothing. " +
    "A user left without warehouse_operator (or owner) has their open fulfillment tasks released (on the order's timeline, published as " +
    "FulfillmentTaskAssigned with assignee_id null). Their live subscriptions to the store's and its orders' channels are re-checked at once, " +
    "and their next request is refused as any non-staff user's. 409 last_store_owner when the store's last owner would lose owner.",
  tags,
  auth: "required",
  params: StaffRoleParams,
  query: RevokeStaffQuery,
  responses: { 204: null },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, query }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      revokeStaffRole(userId, params.id, { userId: params.user_id, role: params.role, reason: query.reason ?? "" }),
    ).pipe(Effect.as({ status: 204 })),
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

/** GET /v1/stores/:id/fulfillment-tasks — open fulfillment tasks, oldest first, in keyset pages. */
export const listFulfillmentTasksRoute = defineRoute({
  method: "GET",
  path: "/v1/stores/:id/fulfillment-tasks",
  operationId: "listFulfillmentTasks",
  summary: "List open fulfillment tasks, oldest first (warehouse operator: theirs and the unassigned ones; owner: all)",
  description:
    "A warehouse operator sees the open tasks assigned to them and the unassigned ones they may take, never another operator's; " +
    "the store owner sees every open task. Keyset pages (`limit`, `cursor`, `next_cursor`).",
  tags,
  auth: "required",
  pagination: true,
  params: StoreParams,
  query: FulfillmentTaskListQuery,
  responses: { 200: PageOf(FulfillmentTaskWire) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    Effect.flatMap(userOf(principal), (userId) => listFulfillmentTasks(userId, params.id, { cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((listed) => ({ status: 200, body: listed })),
    ),
});

/** POST /v1/fulfillment-tasks/:id/take — a warehouse operator takes an open, unassigned task. */
export const takeFulfillmentTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/fulfillment-tasks/:id/take",
  operationId: "takeFulfillmentTask",
  summary: "Take an open, unassigned fulfillment task (warehouse operator)",
  description:
    "One conditional update: of operators taking the same task at once exactly one holds it. Taking one's own task again answers it. " +
    "Publishes FulfillmentTaskAssigned (task_id, order_id, assignee_id) on shop-store and the taker's shop-fulfillment:<store>:<user> channel; " +
    "the store's pool shop-fulfillment:<store> gets FulfillmentTaskLeftList (task_id only: it left the unassigned ones). " +
    "409 fulfillment_task_taken when another operator holds it, 409 fulfillment_task_closed once it is done.",
  tags,
  auth: "required",
  params: FulfillmentTaskParams,
  responses: { 200: FulfillmentTaskWire },
  problems: [403, 404, 409],
  handler: ({ principal, params }) =>
    Effect.flatMap(userOf(principal), (userId) => takeFulfillmentTask(userId, params.id)).pipe(Effect.map((task) => ({ status: 200, body: task }))),
});

/** POST /v1/fulfillment-tasks/:id/assign — the owner assigns an open task to a warehouse operator. */
export const assignFulfillmentTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/fulfillment-tasks/:id/assign",
  operationId: "assignFulfillmentTask",
  summary: "Assign an open fulfillment task to a warehouse operator of the store, with a reason (owner)",
  description:
    "Replaces whoever held it; written on the order's timeline with the previous assignee and the reason, and published as FulfillmentTaskAssigned " +
    "(task_id, order_id, assignee_id; not the reason) on shop-store and the assignee's shop-fulfillment:<store>:<user> channel; the list it left (the previous " +
    "holder's channel, or the store's pool shop-fulfillment:<store> of unassigned ones) gets FulfillmentTaskLeftList naming no one. Assigning the current assignee changes and publishes nothing. " +
    "422 unless user_id is a warehouse operator of the store.",
  tags,
  auth: "required",
  params: FulfillmentTaskParams,
  body: AssignFulfillmentTaskBody,
  responses: { 200: FulfillmentTaskWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) => assignFulfillmentTask(userId, params.id, { assigneeId: body.user_id, reason: body.reason })).pipe(
      Effect.map((task) => ({ status: 200, body: task })),
    ),
});

/** POST /v1/fulfillment-tasks/:id/release — the owner releases an open task back to be taken. */
export const releaseFulfillmentTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/fulfillment-tasks/:id/release",
  operationId: "releaseFulfillmentTask",
  summary: "Release an open fulfillment task so any warehouse operator may take it, with a reason (owner)",
  description:
    "Written on the order's timeline with the previous assignee and the reason, and published as FulfillmentTaskAssigned with assignee_id null " +
    "on shop-store and the store's pool shop-fulfillment:<store>, which every operator follows.",
  tags,
  auth: "required",
  params: FulfillmentTaskParams,
  body: ReleaseFulfillmentTaskBody,
  responses: { 200: FulfillmentTaskWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) => assignFulfillmentTask(userId, params.id, { assigneeId: null, reason: body.reason })).pipe(
      Effect.map((task) => ({ status: 200, body: task })),
    ),
});

/** Store routes. */
export const storeRoutes = [
  createStoreRoute,
  listStaffRoute,
  grantStaffRoute,
  revokeStaffRoute,
  createLocationRoute,
  createPromotionRoute,
  listFulfillmentTasksRoute,
  takeFulfillmentTaskRoute,
  assignFulfillmentTaskRoute,
  releaseFulfillmentTaskRoute,
];
