/**
 * The written idempotency policy is the default of every route (docs/conventions.md,
 * Idempotency): an authenticated POST accepts a key, reads and PUT/PATCH/DELETE take none,
 * unauthenticated routes can take none, and a route marked "Required" keeps its declaration; a
 * route whose answer carries a new secret or token takes none (a stored replay would keep it in clear),
 * and one whose answer carries personal data retained briefly keeps it out of the stored answer.
 */
import { Effect, Schema, SchemaAST } from "effect";
import t from "tap";
import { defaultIdempotency, defineRoute, refusesIdempotencyKey, type AuthMode, type HttpMethod } from "../../adapters/koa/Route.js";
import { retainedBriefly, retainedBrieflyPaths } from "../../core/kernel/RetainedBriefly.js";
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

t.test("a creation that takes no key refuses one (a retry would create a second resource), unless it is idempotent by itself", async (t) => {
  const routes = [...projectsRoutes, ...paymentsRoutes, ...filesRoutes, ...commerceRoutes, ...deliveryRoutes, ...identityRoutes];
  const credential = /secret|token|api_key|apikey|password/i;
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  for (const route of routes) {
    const minted = Object.entries(route.responses)
      .filter(([status, schema]) => Number(status) === 201 && schema !== null)
      .some(([, schema]) => wireFieldNames(Schema.encodedSchema(schema!).ast).some((name) => credential.test(name)));
    if (minted && route.idempotency === "none" && route.method === "POST") t.ok(refusesIdempotencyKey(route), `${route.operationId} mints a secret: a key is refused`);
  }
  t.ok(refusesIdempotencyKey(byId.get("addComment")!), "comments: the retry key is client_mutation_id");
  t.notOk(refusesIdempotencyKey(byId.get("registerCourier")!), "registering again answers the same courier: a key is ignored");
  t.notOk(refusesIdempotencyKey(byId.get("receiveProviderWebhook")!), "a public webhook has no caller to scope a key to");
  t.notOk(refusesIdempotencyKey(byId.get("courierOnline")!), "a POST that creates nothing (200)");
});

const answering = (body: Schema.Schema.Any, options: { idempotency?: "optional" | "none"; unstored?: ReadonlyArray<string> }) =>
  defineRoute({
    method: "POST",
    path: "/v1/places",
    operationId: "createPlace",
    summary: "a place",
    tags: ["places"],
    auth: "required",
    ...(options.idempotency === undefined ? {} : { idempotency: options.idempotency }),
    ...(options.unstored === undefined ? {} : { unstored: { fields: options.unstored, reissue: () => Effect.succeed({}) } }),
    responses: { 201: body as Schema.Schema<unknown, unknown, never> },
    handler: () => Effect.succeed({ status: 201, body: {} }),
  });

t.test("personal data retained briefly never sits in a stored answer: a route that may store its answer must leave every such field unstored", async (t) => {
  const Place = Schema.Struct({ id: Schema.String, lat: retainedBriefly(Schema.Number), address: retainedBriefly(Schema.String) });
  t.throws(() => answering(Place, {}), /"lat" is retained briefly/, "stored with the answer: refused at definition");
  t.throws(() => answering(Place, { unstored: ["lat"] }), /"address" is retained briefly/, "every such field, not one of them");
  t.ok(answering(Place, { unstored: ["lat", "address"] }), "left unstored: the replay reissues them");
  t.ok(answering(Place, { idempotency: "none" }), "a route that stores no answer may answer them");
  const Nested = Schema.Struct({ id: Schema.String, dropoff: Schema.Struct({ lat: retainedBriefly(Schema.Number) }) });
  t.throws(() => answering(Nested, { unstored: ["dropoff"] }), /"dropoff\.lat" is retained briefly/, "a nested field cannot be withheld by name");
});

t.test("every route of the five modules that may store its answer leaves the fields retained briefly unstored", async (t) => {
  const routes = [...projectsRoutes, ...paymentsRoutes, ...filesRoutes, ...commerceRoutes, ...deliveryRoutes, ...identityRoutes];
  const carrying = routes.filter((route) =>
    Object.entries(route.responses).some(([status, schema]) => Number(status) < 300 && schema !== null && retainedBrieflyPaths(schema.ast).length > 0),
  );
  for (const route of carrying) {
    if (route.idempotency === "none") continue;
    for (const [status, schema] of Object.entries(route.responses)) {
      if (schema === null || Number(status) >= 300) continue;
      for (const path of retainedBrieflyPaths(schema.ast)) t.ok(route.unstored?.fields.includes(path), `${route.operationId} ${status}: ${path} is not stored`);
    }
  }
  const names = carrying.map((route) => route.operationId);
  // The delivery answers that show a drop-off or a courier's position are found by their marks.
  for (const name of ["quoteDeliveryOrder", "placeDeliveryOrder", "acceptCourierOffer", "courierOnline", "trackDelivery"]) t.ok(names.includes(name), `${name} answers data retained briefly`);
});
