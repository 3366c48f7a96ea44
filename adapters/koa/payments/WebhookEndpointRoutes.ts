/**
 * Merchant webhook endpoint routes (scope webhooks:write): register a URL (the signing secret is
 * in that answer only, so creation is not idempotent-replayed: a replay would keep the secret in
 * clear in the idempotency record), list, delete, and list an endpoint's deliveries with attempts.
 */
import { Effect, Schema } from "effect";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
} from "../../../core/payments/WebhookEndpointCommands.js";
import { CreatedWebhookEndpointWire, RotatedWebhookEndpointWire, WebhookEndpointWire, webhookEndpointView } from "../../../core/payments/model/WebhookEndpoint.js";
import { WebhookDeliveryWire, webhookDeliveryView } from "../../../core/payments/model/WebhookDelivery.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { CreateWebhookEndpointBody, RotateWebhookSecretBody, WebhookEndpointIdParams } from "./WebhookEndpointSchemas.js";

const tags = ["payments"];

/** POST /v1/webhook-endpoints — register an endpoint; answers its signing secret once. */
const createWebhookEndpointRoute = defineRoute({
  method: "POST",
  path: "/v1/webhook-endpoints",
  operationId: "createWebhookEndpoint",
  summary: "Register a merchant webhook endpoint (the signing secret is shown once)",
  tags,
  auth: "required",
  // Not replayable: a stored replay would keep the new secret in clear in the idempotency record.
  idempotency: "none",
  body: CreateWebhookEndpointBody,
  responses: { 201: CreatedWebhookEndpointWire },
  problems: [403, 422],
  handler: ({ principal, body }) =>
    createWebhookEndpoint(principal, { url: body.url, ...(body.events === undefined ? {} : { events: body.events }) }).pipe(
      Effect.map(({ endpoint, secret }) => ({ status: 201, body: { ...webhookEndpointView(endpoint), secret } })),
    ),
});

/** GET /v1/webhook-endpoints — the merchant's live endpoints. */
const listWebhookEndpointsRoute = defineRoute({
  method: "GET",
  path: "/v1/webhook-endpoints",
  operationId: "listWebhookEndpoints",
  summary: "List the merchant's live webhook endpoints, newest first (keyset pages)",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(WebhookEndpointWire) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listWebhookEndpoints(principal, page).pipe(Effect.map((endpoints) => ({ status: 200, body: mapPage(endpoints, webhookEndpointView) }))),
});

/** DELETE /v1/webhook-endpoints/:id — stop sending to an endpoint. */
const deleteWebhookEndpointRoute = defineRoute({
  method: "DELETE",
  path: "/v1/webhook-endpoints/:id",
  operationId: "deleteWebhookEndpoint",
  summary: "Delete a webhook endpoint",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: WebhookEndpointIdParams,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params }) => deleteWebhookEndpoint(principal, params.id).pipe(Effect.as({ status: 204 })),
});

/**
 * POST /v1/webhook-endpoints/:id/rotate-secret — a new signing secret, shown once; the previous
 * one keeps signing deliveries (one more `v1=`) until the overlap ends.
 */
const rotateWebhookEndpointSecretRoute = defineRoute({
  method: "POST",
  path: "/v1/webhook-endpoints/:id/rotate-secret",
  operationId: "rotateWebhookEndpointSecret",
  summary: "Rotate a webhook endpoint's signing secret with overlap (the new secret is shown once)",
  tags,
  auth: "required",
  // Not replayable, as creation and API key rotation: a stored replay would keep the new secret in clear.
  idempotency: "none",
  params: WebhookEndpointIdParams,
  body: RotateWebhookSecretBody,
  responses: { 200: RotatedWebhookEndpointWire },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    rotateWebhookEndpointSecret(principal, params.id, { overlapSeconds: body.overlap_seconds, reason: body.reason }).pipe(
      Effect.map(({ endpoint, secret, previousSecretExpiresAt }) => ({
        status: 200,
        body: { ...webhookEndpointView(endpoint), secret, previousSecretExpiresAt },
      })),
    ),
});

/** GET /v1/webhook-endpoints/:id/deliveries — deliveries with their attempts, newest first. */
const listWebhookDeliveriesRoute = defineRoute({
  method: "GET",
  path: "/v1/webhook-endpoints/:id/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List an endpoint's deliveries with their attempts (keyset pages)",
  tags,
  auth: "required",
  pagination: true,
  params: WebhookEndpointIdParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(WebhookDeliveryWire) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    listWebhookDeliveries(principal, params.id, page).pipe(
      Effect.map((page) => ({ status: 200, body: mapPage(page, webhookDeliveryView) })),
    ),
});

/** The webhook endpoint routes, in documentation order. */
export const webhookEndpointRoutes = [createWebhookEndpointRoute, listWebhookEndpointsRoute, deleteWebhookEndpointRoute, rotateWebhookEndpointSecretRoute, listWebhookDeliveriesRoute];
