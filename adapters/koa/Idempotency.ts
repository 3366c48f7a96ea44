/**
 * THE idempotency path for HTTP (docs/conventions.md, Idempotency), on top of the kernel's
 * `runIdempotent`. The key comes from `Idempotency-Key`, is scoped to the caller
 * (`principalScope`) and bound to a SHA-256 of method, path and the canonical JSON of the body.
 * Client-error (4xx) answers are part of the stored response; server errors and defects release
 * the key (the handler program keeps them as failures, see EffectHandler.ts). A route whose work
 * is one transaction stores its answer in that transaction (`oneTransaction`).
 */
import { createHash } from "node:crypto";
import { Effect } from "effect";
import type { Context } from "koa";
import { ValidationFailed } from "../../core/kernel/Errors.js";
import { runIdempotent, runIdempotentInTransaction, validateIdempotencyKey, type IdempotencyPolicy } from "../../core/kernel/Idempotency.js";
import type { StoredResponse } from "../../ports/IdempotencyStore.js";
import { principalScope } from "../../ports/Principal.js";
import { principalOf } from "./Authentication.js";
import { settleClientErrors } from "./EffectHandler.js";
import { defaultLimits, type Limits } from "./Limits.js";

/** The request header that carries the key. */
export const idempotencyKeyHeader = "Idempotency-Key";
/** The response header set (to "true") on a replayed answer. */
export const idempotentReplayedHeader = "Idempotent-Replayed";

/** Whether a route requires, accepts or ignores an `Idempotency-Key`. */
export type IdempotencyMode = "required" | "optional" | "none";

/** JSON with object keys sorted at every level, so equal bodies hash equally. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value)) ?? "null";

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeys(record[key])]),
    );
  }
  return value;
};

/**
 * The hash that binds a key to one request: SHA-256 of method, path, query (its parameters
 * canonical, when there are any) and canonical body. A request without a query string hashes as
 * before the query was bound, so keys stored then still replay.
 */
export const requestHash = (method: string, path: string, body: unknown, query: Readonly<Record<string, unknown>> = {}): string => {
  const target = Object.keys(query).length === 0 ? path : `${path}?${canonicalJson(query)}`;
  return createHash("sha256").update(`${method.toUpperCase()}\n${target}\n${canonicalJson(body ?? null)}`).digest("hex");
};

/** Options of the HTTP idempotency path. */
export interface IdempotencyOptions {
  readonly limits?: Pick<Limits, "idempotencyKeyMaxLength">;
  readonly policy?: Partial<IdempotencyPolicy>;
  /** The work is one transaction that calls nothing outside the database (RouteSpec.oneTransaction). */
  readonly oneTransaction?: boolean;
}

/**
 * Runs `work` under the request's idempotency key according to `mode`: without a key an
 * optional route just runs, a required one fails `IdempotencyKeyRequired` (400). Its client
 * errors become stored answers (`settleClientErrors`). With `oneTransaction` (the route's work is
 * one transaction calling nothing outside), a keyed request commits key, work and answer
 * together (`runIdempotentInTransaction`). Answers the response and whether it was replayed.
 */
export const withIdempotency = <E, R>(
  ctx: Context,
  mode: IdempotencyMode,
  work: Effect.Effect<StoredResponse, E, R>,
  options: IdempotencyOptions = {},
) => {
  const header = ctx.get(idempotencyKeyHeader);
  // A header sent empty is a malformed key (1 to 255 characters), not an absent one.
  const sent = ctx.headers[idempotencyKeyHeader.toLowerCase()] !== undefined;
  if (mode === "none" || (mode === "optional" && !sent)) {
    return Effect.map(settleClientErrors(work), (response) => ({ response, replayed: false }));
  }
  const maxLength = (options.limits ?? defaultLimits).idempotencyKeyMaxLength;
  return Effect.gen(function* () {
    const malformed = new ValidationFailed({ errors: [{ path: idempotencyKeyHeader, message: `must be 1 to ${maxLength} characters` }], malformed: true });
    if (sent && header === "") return yield* Effect.fail(malformed);
    const key = yield* validateIdempotencyKey(header === "" ? undefined : header);
    if (key.length > maxLength) return yield* Effect.fail(malformed);
    const principal = principalOf(ctx);
    // Routes refuse idempotency without authentication at mount time; this guards direct use.
    if (principal === undefined) return yield* Effect.dieMessage("idempotency needs an authenticated principal");
    const request = { scope: principalScope(principal), key, requestHash: requestHash(ctx.method, ctx.path, ctx.request.body, ctx.query) };
    return yield* options.oneTransaction === true
      ? runIdempotentInTransaction(request, work, settleClientErrors, options.policy)
      : runIdempotent(request, settleClientErrors(work), options.policy);
  });
};

/** The headers of an answer: `Idempotent-Replayed: true` on a replay. */
export const replayHeaders = (replayed: boolean): Record<string, string> =>
  replayed ? { [idempotentReplayedHeader]: "true" } : {};
