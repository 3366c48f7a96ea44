/**
 * Typed domain errors shared by every module. Each carries a stable snake_case `code` and a
 * `category`; the single HTTP error mapper (adapters/koa) turns the category into a status and
 * the error into problem+json. Modules define their own errors the same way: a
 * `Data.TaggedError` with `code` and `category`.
 */
import { Data } from "effect";
import type { YieldableError } from "effect/Cause";

/** What kind of failure an error is; the HTTP mapper owns the category -> status table. */
export type ErrorCategory =
  | "bad_request" // 400: malformed syntax, bad cursor, missing idempotency key
  | "unauthorized" // 401
  | "payment_required" // 402: the payment was declined
  | "forbidden" // 403: caller can see the object but may not do this
  | "not_found" // 404: unknown, or the caller may not learn it exists
  | "conflict" // 409: illegal state transition, in-progress duplicate, already taken
  | "gone" // 410: expired (an offer, a change-feed cursor older than retention)
  | "precondition_failed" // 412: stale expected version
  | "precondition_required" // 428: If-Match missing
  | "unprocessable" // 422: well-formed but invalid
  | "locked" // 423: the resource may not be used now (a quarantined file version)
  | "payload_too_large" // 413
  | "rate_limited" // 429
  | "unavailable"; // 503

/** One invalid field of a request. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** The shape every domain error exposes to the mapper. */
export interface DomainErrorShape {
  readonly _tag: string;
  readonly code: string;
  readonly category: ErrorCategory;
  readonly detail?: string | undefined;
}

/**
 * Declares a module's error class with its stable code and category in one line:
 *
 *   export class TaskDeleted extends DomainError("TaskDeleted", "task_deleted", "conflict")<{
 *     readonly taskId: string;
 *   }> {}
 *
 * Every instance has `_tag`, `code`, `category` and an optional `detail`, which is all the one
 * HTTP error mapper reads.
 */
export const DomainError = <const Tag extends string, const Code extends string, const Category extends ErrorCategory>(
  tag: Tag,
  code: Code,
  category: Category,
): DomainErrorClass<Tag, Code, Category> => {
  class ModuleError extends Data.TaggedError(tag)<{ readonly detail?: string }> {
    readonly code: Code = code;
    readonly category: Category = category;
  }
  // The constructor copies every argument onto the instance, so the generic signature holds.
  return ModuleError as unknown as DomainErrorClass<Tag, Code, Category>;
};

/** The class `DomainError` returns: extend it with the error's own fields as the type argument. */
export type DomainErrorClass<Tag extends string, Code extends string, Category extends ErrorCategory> = new <
  A extends Record<string, unknown> = {},
>(
  args: A & { readonly detail?: string },
) => YieldableError & { readonly _tag: Tag; readonly code: Code; readonly category: Category; readonly detail?: string } & Readonly<A>;

/** The object does not exist, or the caller may not learn that it does. */
export class NotFound extends DomainError("NotFound", "not_found", "not_found")<{
  readonly resource: string;
}> {}

/** The caller can see the object but lacks the right for this action. */
export class Forbidden extends DomainError("Forbidden", "forbidden", "forbidden") {}

/**
 * An object store grant whose holder lost the access it was issued under (403 grant_revoked):
 * the issuing module's check (ports/GrantChecks.ts) no longer finds it, e.g. the holder left the
 * project or workspace, no longer sees the file, or the share link was revoked. A fresh grant is
 * asked for at the API.
 */
export class GrantRevoked extends DomainError("GrantRevoked", "grant_revoked", "forbidden") {}

/** Why a credential was refused; each reason has its own stable code. */
export type UnauthorizedReason = "missing" | "invalid" | "expired" | "revoked";
const unauthorizedCodes: Record<UnauthorizedReason, string> = {
  missing: "authentication_required",
  invalid: "invalid_token",
  expired: "token_expired",
  revoked: "token_revoked",
};

/** Authentication is missing, badly signed, expired or revoked (401). */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{
  readonly reason: UnauthorizedReason;
  readonly detail?: string;
}> {
  readonly category = "unauthorized" as const;
  get code(): string {
    return unauthorizedCodes[this.reason];
  }
}

/** The request is well-formed but its content is invalid (422), or malformed (400). */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly errors: ReadonlyArray<FieldError>;
  readonly malformed?: boolean;
  readonly detail?: string;
}> {
  readonly code = "validation_failed";
  get category(): ErrorCategory {
    return this.malformed ? "bad_request" : "unprocessable";
  }
}

/** The expected version is stale; `current` is the resource as it is now (412). */
export class VersionMismatch extends DomainError("VersionMismatch", "version_mismatch", "precondition_failed")<{
  readonly current: unknown;
}> {}

/** A conditional update needs an expected version and none was given (428). */
export class PreconditionRequired extends DomainError("PreconditionRequired", "precondition_required", "precondition_required") {}

/** A state conflict with a stable machine code (409), optionally with a `diff`. */
export class Conflict extends Data.TaggedError("Conflict")<{
  readonly code: string;
  readonly detail?: string;
  readonly diff?: unknown;
}> {
  readonly category = "conflict" as const;
}

/** A cursor the server cannot read (400 invalid_cursor). */
export class InvalidCursor extends DomainError("InvalidCursor", "invalid_cursor", "bad_request") {}

/** Two amounts of different currencies were combined (422 currency_mismatch). */
export class CurrencyMismatch extends DomainError("CurrencyMismatch", "currency_mismatch", "unprocessable")<{
  readonly expected: string;
  readonly actual: string;
}> {}

/** Idempotency: the key was already used for a different request (422). */
export class IdempotencyKeyReused extends DomainError("IdempotencyKeyReused", "idempotency_key_reused", "unprocessable") {}

/** Idempotency: the first request with this key is still running (409 + Retry-After). */
export class IdempotencyRequestInProgress extends DomainError("IdempotencyRequestInProgress", "idempotency_request_in_progress", "conflict")<{
  readonly retryAfterSeconds: number;
}> {}

/** Idempotency: the endpoint requires an Idempotency-Key header (400). */
export class IdempotencyKeyRequired extends DomainError("IdempotencyKeyRequired", "idempotency_key_required", "bad_request") {}

/** Every error the shared kernel can raise. */
export type KernelError =
  | NotFound
  | Forbidden
  | Unauthorized
  | ValidationFailed
  | VersionMismatch
  | PreconditionRequired
  | Conflict
  | InvalidCursor
  | CurrencyMismatch
  | IdempotencyKeyReused
  | IdempotencyRequestInProgress
  | IdempotencyKeyRequired;

/** True for any value that exposes the domain error shape (module errors included). */
export const isDomainError = (u: unknown): u is DomainErrorShape =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as DomainErrorShape)._tag === "string" &&
  typeof (u as DomainErrorShape).code === "string" &&
  typeof (u as DomainErrorShape).category === "string";
