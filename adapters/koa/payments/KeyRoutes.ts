/**
 * Merchant API key routes: issue (the secret is in that answer only), list (never a secret),
 * revoke, and rotate with overlap. A key needs the `keys:write` scope and cannot grant scopes it
 * lacks. Issue and rotate are deliberately not idempotent-replayed: a stored replay would keep
 * the new secret in clear in the idempotency record; a lost answer is recovered by listing,
 * revoking the unseen key and issuing again.
 */
import { Effect, Schema } from "effect";
import { issueKey, listKeys, revokeKey, rotateKey } from "../../../core/payments/ApiKeyManagement.js";
import { ApiKeyWire, IssuedApiKeyWire, RotatedApiKeyWire, apiKeyView } from "../../../core/payments/model/ApiKey.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { ApiKeyIdParams, IssueApiKeyBody, RevokeApiKeyBody, RotateApiKeyBody } from "./KeySchemas.js";

const tags = ["payments"];

/** POST /v1/api-keys — issue a key of the caller's merchant (keys:write). */
const issueApiKeyRoute = defineRoute({
  method: "POST",
  path: "/v1/api-keys",
  operationId: "issueApiKey",
  summary: "Issue an API key (the secret is shown once)",
  tags,
  auth: "required",
  // Not replayable: a stored replay would keep the new secret in clear in the idempotency record.
  idempotency: "none",
  body: IssueApiKeyBody,
  responses: { 201: IssuedApiKeyWire },
  problems: [403, 422],
  handler: ({ principal, body }) =>
    issueKey(principal, { scopes: body.scopes, ...(body.expires_at === undefined ? {} : { expiresAt: body.expires_at }) }).pipe(
      Effect.map(({ key, apiKey }) => ({ status: 201, body: { ...apiKeyView(key), apiKey } })),
    ),
});

/** GET /v1/api-keys — the caller's merchant's keys, newest first (keys:write). */
const listApiKeysRoute = defineRoute({
  method: "GET",
  path: "/v1/api-keys",
  operationId: "listApiKeys",
  summary: "List the merchant's API keys, newest first (keyset pages; never their secrets)",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(ApiKeyWire) },
  problems: [400, 403],
  handler: ({ principal, page }) => listKeys(principal, page).pipe(Effect.map((keys) => ({ status: 200, body: mapPage(keys, apiKeyView) }))),
});

/** POST /v1/api-keys/:id/revoke — revoke a key at once (keys:write). */
const revokeApiKeyRoute = defineRoute({
  method: "POST",
  path: "/v1/api-keys/:id/revoke",
  operationId: "revokeApiKey",
  summary: "Revoke an API key",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: ApiKeyIdParams,
  body: RevokeApiKeyBody,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params, body }) =>
    revokeKey(principal, params.id, body.reason ?? "revoked by the merchant").pipe(Effect.as({ status: 204 })),
});

/** POST /v1/api-keys/:id/rotate — a new key with the same scopes; the old one expires after the overlap. */
const rotateApiKeyRoute = defineRoute({
  method: "POST",
  path: "/v1/api-keys/:id/rotate",
  operationId: "rotateApiKey",
  summary: "Rotate an API key with overlap (the new secret is shown once)",
  tags,
  auth: "required",
  // Not replayable: a stored replay would keep the new secret in clear in the idempotency record.
  idempotency: "none",
  params: ApiKeyIdParams,
  body: RotateApiKeyBody,
  responses: { 201: RotatedApiKeyWire },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    rotateKey(principal, params.id, body.overlap_seconds ?? 86_400).pipe(
      Effect.map(({ key, apiKey, previous }) => ({ status: 201, body: { ...apiKeyView(key), apiKey, previous: apiKeyView(previous) } })),
    ),
});

/** The API key routes, in documentation order. */
export const apiKeyRoutes = [issueApiKeyRoute, listApiKeysRoute, revokeApiKeyRoute, rotateApiKeyRoute];
