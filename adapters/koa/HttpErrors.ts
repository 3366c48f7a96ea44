/**
 * Typed errors that only the HTTP edge can raise (routing, body parsing, headers, rate limits,
 * readiness). They have the same shape as the kernel's errors (`_tag`, `code`, `category`), so
 * the one error mapper renders them like any domain error. Categories 405 and 415 exist only
 * here, which is why `HttpErrorCategory` extends the kernel's `ErrorCategory`.
 */
import { Data } from "effect";
import type { ErrorCategory, FieldError } from "../../core/kernel/Errors.js";

/** The kernel's categories plus the two that only HTTP has. */
export type HttpErrorCategory = ErrorCategory | "method_not_allowed" | "unsupported_media_type";

/** No route has this path (404 route_not_found). */
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{ readonly detail?: string }> {
  readonly code = "route_not_found";
  readonly category = "not_found" as const;
}

/** The path exists but not with this method (405 method_not_allowed); `allowed` fills `Allow`. */
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{
  readonly allowed: ReadonlyArray<string>;
  readonly detail?: string;
}> {
  readonly code = "method_not_allowed";
  readonly category = "method_not_allowed" as const;
}

/** The request body is larger than `Limits.jsonBodyBytes` (413 payload_too_large). */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly detail?: string }> {
  readonly code = "payload_too_large";
  readonly category = "payload_too_large" as const;
}

/** The request body is not valid JSON (400 malformed_json), with `errors` as every 400 has. */
export class MalformedJson extends Data.TaggedError("MalformedJson")<{ readonly detail?: string; readonly errors?: ReadonlyArray<FieldError> }> {
  readonly code = "malformed_json";
  readonly category = "bad_request" as const;
}

/** A body route received something other than JSON (415 unsupported_media_type). */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly detail?: string }> {
  readonly code = "unsupported_media_type";
  readonly category = "unsupported_media_type" as const;
}

/** `If-Match` is present but is not a version (400 invalid_if_match). */
export class InvalidIfMatch extends Data.TaggedError("InvalidIfMatch")<{ readonly detail?: string }> {
  readonly code = "invalid_if_match";
  readonly category = "bad_request" as const;
}

/** `If-Match` sent to a route that checks no version (400 if_match_not_supported): never silently ignored. */
export class IfMatchNotSupported extends Data.TaggedError("IfMatchNotSupported")<{ readonly detail?: string }> {
  readonly code = "if_match_not_supported";
  readonly category = "bad_request" as const;
}

/**
 * `Idempotency-Key` sent to a creation that takes none (400 idempotency_key_not_supported): a
 * retry would create a second resource, so the client must not believe it safe.
 */
export class IdempotencyKeyNotSupported extends Data.TaggedError("IdempotencyKeyNotSupported")<{ readonly detail?: string }> {
  readonly code = "idempotency_key_not_supported";
  readonly category = "bad_request" as const;
}

/** The list `limit` is not an integer between 1 and `Limits.listMax` (400 invalid_limit). */
export class InvalidLimit extends Data.TaggedError("InvalidLimit")<{ readonly detail?: string }> {
  readonly code = "invalid_limit";
  readonly category = "bad_request" as const;
}

/** The caller spent its rate-limit budget (429 rate_limited + Retry-After). */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly retryAfterSeconds: number;
  readonly detail?: string;
}> {
  readonly code = "rate_limited";
  readonly category = "rate_limited" as const;
}

/** The readiness check failed (503 not_ready). */
export class NotReady extends Data.TaggedError("NotReady")<{ readonly detail?: string }> {
  readonly code = "not_ready";
  readonly category = "unavailable" as const;
}
