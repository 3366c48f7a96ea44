/**
 * The written idempotency policy is the default of every route (docs/conventions.md,
 * Idempotency): an authenticated POST accepts a key, reads and PUT/PATCH/DELETE take none,
 * unauthenticated routes can take none, and a route marked "Required" keeps its declaration.
 */
import { Effect } from "effect";
import t from "tap";
import { defaultIdempotency, defineRoute, type AuthMode, type HttpMethod } from "../../adapters/koa/Route.js";

const route = (method: HttpMethod, auth: AuthMode, idempotency?: "required" | "optional" | "none") =>
  defineRoute({
    method,
    path: "/v1/things",
    operationId: `${method}-${auth}`,
    summary: "a thing",
    tags: ["things"],
    auth,
    ...(idempotency === undefined ? {} : { idempotency }),
    responses: { 200: null },
    handler: () => Effect.succeed({ status: 200 }),
  });

t.test("an authenticated POST accepts an Idempotency-Key unless it declares otherwise", async (t) => {
  t.equal(route("POST", "required").idempotency, "optional");
  t.equal(route("POST", "required", "required").idempotency, "required");
  t.equal(route("POST", "required", "none").idempotency, "none");
});

t.test("reads and PUT, PATCH, DELETE take no key by default", async (t) => {
  for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) t.equal(route(method, "required").idempotency, "none", method);
});

t.test("unauthenticated routes take no key: keys are scoped to a caller", async (t) => {
  t.equal(route("POST", "none").idempotency, "none");
  t.equal(defaultIdempotency("POST", "none"), "none");
  t.throws(() => route("POST", "none", "optional"), /idempotency requires auth/);
});
