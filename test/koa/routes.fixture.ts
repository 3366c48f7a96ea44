/**
 * Routes used by the Koa tests: each one exercises one path of the machinery (validation,
 * If-Match, pagination, domain errors, defects).
 */
import { Effect, Schema } from "effect";
import { Conflict, Forbidden, NotFound, VersionMismatch } from "../../core/kernel/Errors.js";
import { decodeCursor } from "../../core/kernel/Cursor.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { pageFrom, PageOf } from "../../core/kernel/Page.js";
import { CurrentPrincipal, principalScope } from "../../ports/Principal.js";

/** The only id GET /v1/things/:thing_id finds. */
export const knownThingId = "0190a1b2-0000-7000-8000-000000000001";
/** An id the caller may see but not change. */
export const lockedThingId = "0190a1b2-0000-7000-8000-000000000002";

const Thing = Schema.Struct({ id: Schema.String, title: Schema.String, count: Schema.Int, version: Schema.Int }).annotations({
  identifier: "Thing",
});
const NewThing = Schema.Struct({
  title: Schema.String.pipe(Schema.minLength(1)),
  count: Schema.Int.pipe(Schema.nonNegative()),
}).annotations({ identifier: "NewThing" });
const ThingParams = Schema.Struct({ thing_id: Schema.UUID });

const current = { id: knownThingId, title: "Current", count: 1, version: 3 };

export const createThing = defineRoute({
  method: "POST",
  path: "/v1/things",
  operationId: "createThing",
  summary: "Create a thing",
  tags: ["things"],
  auth: "required",
  answersEtag: "version",
  idempotency: "none",
  body: NewThing,
  responses: { 201: Thing },
  handler: (input) => Effect.succeed({ status: 201, body: { id: knownThingId, ...input.body, version: 1 }, etag: 1 }),
});

export const getThing = defineRoute({
  method: "GET",
  path: "/v1/things/:thing_id",
  operationId: "getThing",
  summary: "Read a thing",
  tags: ["things"],
  auth: "required",
  answersEtag: "version",
  idempotency: "none",
  params: ThingParams,
  responses: { 200: Thing },
  problems: [403, 404],
  handler: (input) =>
    Effect.gen(function* () {
      if (input.params.thing_id === lockedThingId) return yield* Effect.fail(new Forbidden({}));
      if (input.params.thing_id !== knownThingId) return yield* Effect.fail(new NotFound({ resource: "thing" }));
      return { status: 200, body: current, etag: current.version };
    }),
});

export const updateThing = defineRoute({
  method: "PATCH",
  path: "/v1/things/:thing_id",
  operationId: "updateThing",
  summary: "Change a thing",
  tags: ["things"],
  auth: "required",
  answersEtag: "version",
  idempotency: "none",
  ifMatch: "required",
  params: ThingParams,
  body: Schema.Struct({ title: Schema.String }),
  responses: { 200: Thing },
  handler: (input) =>
    input.ifMatch !== current.version
      ? Effect.fail(new VersionMismatch({ current }))
      : Effect.succeed({ status: 200, body: { ...current, title: input.body.title, version: 4 }, etag: 4 }),
});

export const checkoutThing = defineRoute({
  method: "POST",
  path: "/v1/things/:thing_id/checkout",
  operationId: "checkoutThing",
  summary: "A conflict that carries a diff",
  tags: ["things"],
  auth: "required",
  idempotency: "none",
  params: ThingParams,
  responses: { 200: Thing },
  handler: () => Effect.fail(new Conflict({ code: "price_changed", diff: { price_minor: { was: 100, now: 120 } } })),
});

export const listThings = defineRoute({
  method: "GET",
  path: "/v1/things",
  operationId: "listThings",
  summary: "List things",
  tags: ["things"],
  auth: "required",
  idempotency: "none",
  pagination: true,
  responses: { 200: PageOf(Thing) },
  handler: (input) =>
    Effect.gen(function* () {
      const after = input.page.cursor === undefined ? 0 : (yield* decodeCursor(Schema.Tuple(Schema.Int), input.page.cursor))[0];
      const rows = Array.from({ length: input.page.limit + 1 }, (_, i) => ({ ...current, count: after + i + 1 }));
      return { status: 200, body: pageFrom(rows, input.page.limit, (row) => [row.count]) };
    }),
});

export const crash = defineRoute({
  method: "GET",
  path: "/v1/crash",
  operationId: "crash",
  summary: "Dies with a message full of secrets",
  tags: ["test"],
  auth: "none",
  idempotency: "none",
  responses: { 200: null },
  handler: () => Effect.die(new Error("SELECT * FROM users WHERE password = 'hunter2' -- postgres://admin:s3cr3t@db")),
});

export const failUntyped = defineRoute({
  method: "GET",
  path: "/v1/fail-untyped",
  operationId: "failUntyped",
  summary: "Fails with a plain Error",
  tags: ["test"],
  auth: "none",
  idempotency: "none",
  responses: { 200: null },
  handler: () => Effect.fail(new Error("connect ECONNREFUSED postgres://admin:s3cr3t@db")),
});

export const publicPing = defineRoute({
  method: "GET",
  path: "/v1/public/ping",
  operationId: "publicPing",
  summary: "A public route",
  tags: ["test"],
  auth: "none",
  idempotency: "none",
  responses: { 200: Schema.Struct({ pong: Schema.Boolean }) },
  handler: () => Effect.succeed({ status: 200, body: { pong: true } }),
});

export const whoAmI = defineRoute({
  method: "GET",
  path: "/v1/me",
  operationId: "whoAmI",
  summary: "The caller's principal",
  tags: ["test"],
  auth: "required",
  idempotency: "none",
  responses: { 200: Schema.Struct({ user_id: Schema.String }) },
  handler: (input) =>
    Effect.succeed({ status: 200, body: { user_id: input.principal.kind === "user" ? input.principal.userId : "" } }),
});

export const whoAmIFromContext = defineRoute({
  method: "GET",
  path: "/v1/me/context",
  operationId: "whoAmIFromContext",
  summary: "The caller's principal, read from CurrentPrincipal",
  tags: ["test"],
  auth: "required",
  idempotency: "none",
  responses: { 200: Schema.Struct({ scope: Schema.String }) },
  handler: () =>
    Effect.map(CurrentPrincipal, (principal) => ({ status: 200, body: { scope: principalScope(principal) } })),
});

/** Every fixture route. */
export const fixtureRoutes = [createThing, getThing, updateThing, checkoutThing, listThings, crash, failUntyped, publicPing, whoAmI];
