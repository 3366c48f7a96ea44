/**
 * The written idempotency policy is the default of every route (docs/conventions.md,
 * Idempotency): an authenticated POST accepts a key, reads and PUT/PATCH/DELETE take none,
 * unauthenticated routes can take none, and a route marked "Required" keeps its declaration; a
 * route whose answer carries a new secret or token takes none (a stored replay would keep it in clear).
 */
import { Effect, Schema, SchemaAST } from "effect";
import t from "tap";
import { defaultIdempotency, defineRoute, type AuthMode, type HttpMethod } from "../../adapters/koa/Route.js";
import { commerceRoutes } from "../../adapters/koa/commerce/index.js";
import { deliveryRoutes } from "../../adapters/koa/delivery/index.js";
import { filesRoutes } from "../../adapters/koa/files/index.js";
import { identityRoutes } from "../../adapters/koa/identity/IdentityRoutes.js";
import { paymentsRoutes } from "../../adapters/koa/payments/index.js";
import { projectsRoutes } from "../../adapters/koa/projects/index.js";

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

/** The wire field names a schema's encoded side can carry (structs, unions, refinements, transformations). */
const wireFieldNames = (ast: SchemaAST.AST, seen = new Set<SchemaAST.AST>()): ReadonlyArray<string> => {
  if (seen.has(ast)) return [];
  seen.add(ast);
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.flatMap((p) => [String(p.name), ...wireFieldNames(p.type, seen)]);
    case "Union":
      return ast.types.flatMap((member) => wireFieldNames(member, seen));
    case "Refinement":
      return wireFieldNames(ast.from, seen);
    case "Transformation":
      return [...wireFieldNames(ast.from, seen), ...wireFieldNames(ast.to, seen)];
    case "Suspend":
      return wireFieldNames(ast.f(), seen);
    default:
      return [];
  }
};

/** Answers that may be stored although they carry a credential, and why (docs/decisions.md). */
const storedCredentialAnswers = new Map([
  // The client secret grants only the customer's view and confirm of that one intent, to a merchant that can already do both.
  ["createPaymentIntent", "client secret of one intent"],
]);

t.test("a route whose answer carries a new secret or token stores no answer: it takes no Idempotency-Key", async (t) => {
  const routes = [...projectsRoutes, ...paymentsRoutes, ...filesRoutes, ...commerceRoutes, ...deliveryRoutes, ...identityRoutes];
  const credential = /secret|token|api_key|apikey|password/i;
  let checked = 0;
  for (const route of routes) {
    const fields = Object.entries(route.responses)
      .filter(([status, schema]) => Number(status) < 300 && schema !== null)
      .flatMap(([, schema]) => wireFieldNames(Schema.encodedSchema(schema!).ast));
    const carried = fields.filter((name) => credential.test(name));
    if (carried.length === 0 || storedCredentialAnswers.has(route.operationId)) continue;
    checked += 1;
    t.equal(route.idempotency, "none", `${route.operationId} answers ${carried.join(", ")}: no stored replay`);
  }
  t.ok(checked >= 5, `the secret-bearing creations are found (${checked}): api keys, webhook endpoints, share links, carts`);
});
