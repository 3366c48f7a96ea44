/**
 * THE error mapper (docs/architecture.md: one way to do each thing): any failure -> problem+json.
 * Domain errors of every module (objects with `_tag`, `code`, `category`) map through the
 * category -> status table below. A failure that is no domain error is a 503 `service_unavailable`
 * (with `Retry-After`) when the host's outage recogniser says it is a dependency's outage (the
 * database unreachable or busy: hosts pass adapters/sql's `databaseOutageOf`), else a 500
 * `internal_error`. Neither body says anything about the cause (no stack, no SQL, no secrets).
 */
import { Cause, Runtime } from "effect";
import { isDomainError, type FieldError } from "../../core/kernel/Errors.js";
import type { HttpErrorCategory } from "./HttpErrors.js";
import { makeProblem, problemTitle, type ProblemResponse } from "./ProblemJson.js";

/** The HTTP status of each error category. */
export const categoryStatus: Readonly<Record<HttpErrorCategory, number>> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  locked: 423,
  precondition_required: 428,
  rate_limited: 429,
  unavailable: 503,
};

/** The code and detail of every failure the mapper does not recognise. */
export const internalErrorCode = "internal_error";
const internalErrorDetail = "The server could not complete the request.";

/** The code of a request refused because a dependency (the database) is down: 503 with Retry-After. */
export const serviceUnavailableCode = "service_unavailable";
const serviceUnavailableDetail = "A service this request needs is unavailable for the moment; retry after the time given in Retry-After.";

/** A failure that is a dependency's outage rather than a bug, as an {@link OutageRecognizer} names it. */
export interface DependencyOutage {
  /** What is down, e.g. `database`: for the log, never the body. */
  readonly dependency: string;
  /** Why, e.g. `unreachable` or `busy`: for the log. */
  readonly reason: string;
  /** When a retry may succeed (the `Retry-After` header). */
  readonly retryAfterSeconds: number;
}

/** Tells a dependency's outage from a bug among failures that are no domain error (the SQL adapter's `databaseOutageOf` fits). */
export type OutageRecognizer = (error: unknown) => DependencyOutage | undefined;

/**
 * The outage `error` carries, looking through what wraps a defect on its way here: a rejected
 * `runPromise`'s FiberFailure (its squashed cause) and `Error.cause` chains (a few levels).
 */
export const outageOf = (error: unknown, recognize: OutageRecognizer): DependencyOutage | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const outage = recognize(current);
    if (outage !== undefined) return outage;
    current = Runtime.isFiberFailure(current) ? Cause.squash(current[Runtime.FiberFailureCauseId]) : (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/** Detail used when an error carries none, so every problem has a human sentence. */
const defaultDetails: Readonly<Record<string, string>> = {
  authentication_required: "This endpoint requires an Authorization: Bearer token.",
  invalid_token: "The bearer token is malformed or its signature does not verify.",
  token_expired: "The bearer token has expired.",
  token_revoked: "The bearer token was revoked; sign in again.",
  validation_failed: "The request is invalid; see `errors`.",
  version_mismatch: "The resource has changed since it was read; see `current`.",
  precondition_required: "This update requires an If-Match header with the resource version.",
  idempotency_key_required: "This endpoint requires an Idempotency-Key header.",
  idempotency_key_reused: "The Idempotency-Key was already used for a different request.",
  idempotency_request_in_progress: "A request with this Idempotency-Key is still being processed.",
  invalid_cursor: "The cursor is not one this server issued.",
  route_not_found: "No route matches this path.",
  method_not_allowed: "This path does not accept this method.",
  payload_too_large: "The request body is too large.",
  malformed_json: "The request body is not valid JSON.",
  unsupported_media_type: "The request body must be application/json.",
  invalid_if_match: 'If-Match must be a version such as "3".',
  if_match_not_supported: "This endpoint checks no version: send it without If-Match.",
  idempotency_key_not_supported: "This endpoint takes no Idempotency-Key: a retry creates another resource.",
  invalid_limit: "limit must be an integer within the allowed range.",
  rate_limited: "Too many requests; retry after the time given in Retry-After.",
  not_ready: "The service is not ready to serve requests.",
};

type Fields = Record<string, unknown>;

/**
 * Maps any failure to its problem response (status, problem+json body, extra headers). With
 * `recognizeOutage`, a failure it names a dependency's outage answers 503 `service_unavailable`.
 */
export const toProblem = (error: unknown, recognizeOutage?: OutageRecognizer): ProblemResponse => {
  if (!isDomainError(error)) {
    const outage = recognizeOutage === undefined ? undefined : outageOf(error, recognizeOutage);
    return outage === undefined ? internalError() : serviceUnavailable(outage);
  }
  const status = (categoryStatus as Record<string, number | undefined>)[error.category];
  // A category nobody mapped is a programming error, not the caller's fault.
  if (status === undefined) return internalError();
  const fields = error as unknown as Fields;
  const detail = typeof error.detail === "string" && error.detail !== "" ? error.detail : (defaultDetails[error.code] ?? problemTitle(status));
  return {
    status,
    body: makeProblem(status, error.code, detail, extensionsOf(error.category, fields)),
    headers: headersOf(error.category, error.code, fields),
  };
};

/** The 500 answer for anything that is not a mapped domain error. */
export const internalError = (): ProblemResponse => ({
  status: 500,
  body: makeProblem(500, internalErrorCode, internalErrorDetail),
  headers: {},
});

/** The 503 answer for a dependency's outage: what is down and why stay in the log. */
export const serviceUnavailable = (outage: Pick<DependencyOutage, "retryAfterSeconds">): ProblemResponse => ({
  status: 503,
  body: makeProblem(503, serviceUnavailableCode, serviceUnavailableDetail),
  headers: { "Retry-After": String(Math.max(1, Math.ceil(outage.retryAfterSeconds))) },
});

/** The documented extension members; nothing else of an error leaks into the body. */
const extensionsOf = (category: string, fields: Fields): Fields => {
  const out: Fields = {};
  if ((category === "unprocessable" || category === "bad_request") && Array.isArray(fields.errors)) {
    out.errors = (fields.errors as ReadonlyArray<FieldError>).map((e) => ({ path: e.path, message: e.message }));
  }
  if (category === "precondition_failed" && "current" in fields) out.current = fields.current;
  if (category === "conflict" && fields.diff !== undefined) out.diff = fields.diff;
  // A module error may name further members explicitly (e.g. `available` for insufficient stock).
  if (typeof fields.problemExtensions === "object" && fields.problemExtensions !== null) {
    Object.assign(out, fields.problemExtensions);
  }
  return out;
};

const headersOf = (category: string, code: string, fields: Fields): Record<string, string> => {
  const headers: Record<string, string> = {};
  if (typeof fields.retryAfterSeconds === "number" && Number.isFinite(fields.retryAfterSeconds)) {
    headers["Retry-After"] = String(Math.max(1, Math.ceil(fields.retryAfterSeconds)));
  }
  if (category === "unauthorized") {
    // RFC 6750 §3: a missing token gets a bare challenge; a bad one says why.
    headers["WWW-Authenticate"] = code === "authentication_required" ? "Bearer" : 'Bearer error="invalid_token"';
  }
  if (category === "method_not_allowed" && Array.isArray(fields.allowed)) {
    headers["Allow"] = (fields.allowed as ReadonlyArray<string>).join(", ");
  }
  return headers;
};
