/**
 * The one error mapper: every kernel error maps to its status and stable code, documented
 * extension members (errors, current, diff) are carried, and anything else is a bare 500.
 */
import { Data } from "effect";
import t from "tap";
import {
  Conflict,
  CurrencyMismatch,
  DomainError,
  Forbidden,
  IdempotencyKeyRequired,
  IdempotencyKeyReused,
  IdempotencyRequestInProgress,
  InvalidCursor,
  NotFound,
  PreconditionRequired,
  Unauthorized,
  ValidationFailed,
  VersionMismatch,
} from "../../core/kernel/Errors.js";
import { toProblem } from "../../adapters/koa/ErrorMapper.js";
import { MethodNotAllowed, NotReady, PayloadTooLarge, RateLimited, UnsupportedMediaType } from "../../adapters/koa/HttpErrors.js";

t.test("each kernel and HTTP error maps to its status and code", async (t) => {
  const cases: Array<[unknown, number, string]> = [
    [new NotFound({ resource: "task" }), 404, "not_found"],
    [new Forbidden({}), 403, "forbidden"],
    [new Unauthorized({ reason: "missing" }), 401, "authentication_required"],
    [new Unauthorized({ reason: "invalid" }), 401, "invalid_token"],
    [new Unauthorized({ reason: "expired" }), 401, "token_expired"],
    [new Unauthorized({ reason: "revoked" }), 401, "token_revoked"],
    [new ValidationFailed({ errors: [] }), 422, "validation_failed"],
    [new ValidationFailed({ errors: [], malformed: true }), 400, "validation_failed"],
    [new VersionMismatch({ current: {} }), 412, "version_mismatch"],
    [new PreconditionRequired({}), 428, "precondition_required"],
    [new Conflict({ code: "illegal_transition" }), 409, "illegal_transition"],
    [new InvalidCursor({}), 400, "invalid_cursor"],
    [new CurrencyMismatch({ expected: "EUR", actual: "USD" }), 422, "currency_mismatch"],
    [new IdempotencyKeyReused({}), 422, "idempotency_key_reused"],
    [new IdempotencyRequestInProgress({ retryAfterSeconds: 2 }), 409, "idempotency_request_in_progress"],
    [new IdempotencyKeyRequired({}), 400, "idempotency_key_required"],
    [new MethodNotAllowed({ allowed: ["GET"] }), 405, "method_not_allowed"],
    [new PayloadTooLarge({}), 413, "payload_too_large"],
    [new UnsupportedMediaType({}), 415, "unsupported_media_type"],
    [new RateLimited({ retryAfterSeconds: 3 }), 429, "rate_limited"],
    [new NotReady({}), 503, "not_ready"],
  ];
  for (const [error, status, code] of cases) {
    const problem = toProblem(error);
    t.equal(problem.status, status, `${code} -> ${status}`);
    t.equal(problem.body.code, code);
    t.equal(problem.body.status, status);
    t.ok(problem.body.detail.length > 0, `${code} has a detail`);
  }
});

t.test("a module's own error maps through its category", async (t) => {
  class InsufficientStock extends Data.TaggedError("InsufficientStock")<{ readonly available: number }> {
    readonly code = "insufficient_stock";
    readonly category = "conflict" as const;
    get problemExtensions() {
      return { available: this.available };
    }
  }
  const problem = toProblem(new InsufficientStock({ available: 2 }));
  t.equal(problem.status, 409);
  t.equal(problem.body.code, "insufficient_stock");
  t.equal(problem.body.available, 2, "named extension members are carried");
  t.notOk("_tag" in problem.body, "nothing else of the error leaks");
});

t.test("extension members: errors for validation, current for 412, diff for conflicts", async (t) => {
  const v = toProblem(new ValidationFailed({ errors: [{ path: "title", message: "is required" }] }));
  t.same(v.body.errors, [{ path: "title", message: "is required" }]);
  t.same(toProblem(new VersionMismatch({ current: { version: 4 } })).body.current, { version: 4 });
  t.same(toProblem(new Conflict({ code: "menu_changed", diff: { price: [1, 2] } })).body.diff, { price: [1, 2] });
  t.notOk("diff" in toProblem(new Conflict({ code: "taken" })).body, "no diff member without a diff");
});

t.test("Retry-After, WWW-Authenticate and Allow headers come with their errors", async (t) => {
  t.equal(toProblem(new IdempotencyRequestInProgress({ retryAfterSeconds: 2 })).headers["Retry-After"], "2");
  t.equal(toProblem(new RateLimited({ retryAfterSeconds: 0.2 })).headers["Retry-After"], "1", "at least one second");
  t.equal(toProblem(new Unauthorized({ reason: "missing" })).headers["WWW-Authenticate"], "Bearer");
  t.equal(toProblem(new Unauthorized({ reason: "expired" })).headers["WWW-Authenticate"], 'Bearer error="invalid_token"');
  t.equal(toProblem(new MethodNotAllowed({ allowed: ["GET", "POST"] })).headers["Allow"], "GET, POST");
});

t.test("unknown failures are a 500 internal_error that reveals nothing", async (t) => {
  for (const error of [
    new Error("duplicate key value violates unique constraint \"users_pkey\" password=hunter2"),
    "a string",
    undefined,
    { _tag: "Weird", code: "weird", category: "no_such_category", detail: "SELECT secret FROM vault" },
  ]) {
    const problem = toProblem(error);
    t.equal(problem.status, 500);
    t.equal(problem.body.code, "internal_error");
    t.notMatch(JSON.stringify(problem.body), /hunter2|SELECT|users_pkey/);
  }
});

t.test("module errors declared with DomainError map by category: 402 payment declined, 410 gone, 423 locked", async (t) => {
  class CardDeclined extends DomainError("CardDeclined", "payment_declined", "payment_required") {}
  class OfferExpired extends DomainError("OfferExpired", "offer_expired", "gone") {}
  class VersionQuarantined extends DomainError("VersionQuarantined", "version_quarantined", "locked")<{ readonly versionId: string }> {}
  for (const [error, status, code] of [
    [new CardDeclined({}), 402, "payment_declined"],
    [new OfferExpired({ detail: "The offer expired." }), 410, "offer_expired"],
    [new VersionQuarantined({ versionId: "v1" }), 423, "version_quarantined"],
  ] as const) {
    const problem = toProblem(error);
    t.equal(problem.status, status, code);
    t.match(problem.body, { status, code });
  }
});
