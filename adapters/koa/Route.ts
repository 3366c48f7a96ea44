/**
 * Declarative routes. A module describes each endpoint once (`defineRoute`): method, path,
 * schemas of params, query, body and responses, authentication, idempotency and `If-Match`
 * needs, and a handler returning an Effect. `mountRoutes` wires every route the same way
 * (authentication, rate limit, body parsing, decoding, action budget, `If-Match`, pagination, idempotency,
 * response encoding, ETag, problem+json), and `openApiDocument` describes them from the same
 * definitions, so the documentation cannot drift from the behaviour.
 */
import type Router from "@koa/router";
import { Effect, SchemaAST, type Schema } from "effect";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { bindCursor, unbindCursor } from "../../core/kernel/Cursor.js";
import type { IdempotencyPolicy } from "../../core/kernel/Idempotency.js";
import { retainedBrieflyPaths } from "../../core/kernel/RetainedBriefly.js";
import type { StoredResponse } from "../../ports/IdempotencyStore.js";
import type { Principal } from "../../ports/Principal.js";
import { principalScope } from "../../ports/Principal.js";
import type { AuthenticationGuard } from "./RateLimit.js";
import { makeActionBudgets, type ActionBudgetLimit, type ActionBudgetName, type SpendActionBudget } from "./ActionBudgets.js";
import type { LimiterStore } from "./LimiterStore.js";
import { principalOf } from "./Authentication.js";
import { jsonBody } from "./Body.js";
import { decodeRequestPart, encodeResponseBody, nulRefusal } from "./Decode.js";
import {
  provideHost,
  runStored,
  toStoredResponse,
  type HostRuntime,
  type RouteResponse,
} from "./EffectHandler.js";
import { respondWithError } from "./ErrorHandling.js";
import { parseIfMatch, requireIfMatch } from "./ETag.js";
import { IdempotencyKeyNotSupported, IfMatchNotSupported } from "./HttpErrors.js";
import { idempotencyKeyHeader, replayHeaders, withIdempotency, type IdempotencyMode } from "./Idempotency.js";
import { resolveLimits, type Limits } from "./Limits.js";
import { listIdentity, pageParams, type PageParams } from "./Pagination.js";
import { requestIdOf } from "./RequestId.js";

/** The methods a route may use. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/**
 * Whether a route needs an authenticated principal; "optional": a request with an
 * `Authorization` header is authenticated (and refused if it fails), one without runs anonymously.
 */
export type AuthMode = "required" | "optional" | "none";
/** Whether a route requires, accepts or ignores `If-Match`. */
export type IfMatchMode = "required" | "optional" | "none";
/**
 * The ETag a route's 2xx answers carry, for the documentation: "version" is `"<version>"`
 * (`RouteResponse.etag`); "qualified" is `"<version>.<qualifier>"`, also changed by what else the
 * answer depends on (a node's ACL epoch); "weak" is `W/"<version>.<digest>"` over the whole answer
 * (an order view's embedded timeline page). `parseIfMatch` reads the version of each.
 */
export type EtagForm = "version" | "qualified" | "weak";

/** A request header the handler reads itself (the machinery's Idempotency-Key and If-Match are documented by their modes). */
export interface RequestHeader {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
}

// Request and response schemas must not need services to decode.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySchema = Schema.Schema<any, any, never>;

/** What a handler receives: the decoded request and what the machinery read from headers. */
export interface RouteInput<P, Q, B, A extends AuthMode> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The caller; always present on `auth: "required"` routes. */
  readonly principal: A extends "required" ? Principal : Principal | undefined;
  /** The `If-Match` version; always a number on `ifMatch: "required"` routes. */
  readonly ifMatch: number | undefined;
  /** `limit` and `cursor` on `pagination: true` routes (defaults otherwise). */
  readonly page: PageParams;
  readonly requestId: string;
  /**
   * The request's `Idempotency-Key`, for work that must remember it beyond the idempotency
   * record (a refund resumed by a retry); the route's idempotency path has checked it.
   */
  readonly idempotencyKey: string | undefined;
}

/** The definition of one endpoint, as a module writes it. */
export interface RouteSpec<P, Q, B, A extends AuthMode, E, R> {
  readonly method: HttpMethod;
  /** Koa-router path, e.g. `/v1/projects/:project_id/tasks`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: ReadonlyArray<string>;
  readonly auth: A;
  /**
   * Whether the route requires, accepts or ignores `Idempotency-Key`; omitted, the policy
   * decides (`defaultIdempotency`, docs/conventions.md, Idempotency). Declare "required" where
   * the specification says so; "none" on a POST only with the reason (comments use the spec's
   * `client_mutation_id`).
   */
  readonly idempotency?: IdempotencyMode;
  /**
   * A POST answering 201 that takes no key because a retry answers the same resource (registering
   * again answers the same courier): a key sent to it is ignored instead of refused
   * (`refusesIdempotencyKey`).
   */
  readonly idempotentByItself?: boolean;
  readonly ifMatch?: IfMatchMode;
  /** The ETag its 2xx answers carry; omitted, none. */
  readonly answersEtag?: EtagForm;
  /** Request headers the handler reads from `ctx` (a share token, a webhook signature). */
  readonly requestHeaders?: ReadonlyArray<RequestHeader>;
  /**
   * The handler's work is one database transaction and calls nothing outside it (no payment
   * provider, no blob store, no work in another transaction it waits for). With an
   * Idempotency-Key the key, the work and the stored answer then commit together
   * (`runIdempotentInTransaction`): a crash cannot leave the work done and the key in progress.
   */
  readonly oneTransaction?: boolean;
  /**
   * Body fields (their wire names) of a 2xx answer that are never stored: a secret the work
   * mints (spec: secrets are never kept in clear), and personal data its module keeps only
   * briefly (schemas marked `retainedBriefly`, core/kernel/RetainedBriefly.ts: a route that may
   * store its answer must list every such field here, or `defineRoute` throws). The idempotency
   * record keeps the answer without them; the first answer carries them, and a replay carries
   * the fresh ones `reissue` makes from the stored answer's body.
   */
  readonly unstored?: {
    readonly fields: ReadonlyArray<string>;
    /** Its failures go through the error mapper like the handler's; it may need only services the handler needs. */
    readonly reissue: (input: RouteInput<P, Q, B, A>, stored: Readonly<Record<string, unknown>>) => Effect.Effect<Readonly<Record<string, unknown>>, unknown, NoInfer<R>>;
  };
  /** Reads `limit` and `cursor` into `input.page` and documents them. */
  readonly pagination?: boolean;
  readonly params?: Schema.Schema<P, any, never>;
  readonly query?: Schema.Schema<Q, any, never>;
  readonly body?: Schema.Schema<B, any, never>;
  /** Every success status the handler may answer, with its body schema (null: no body). */
  readonly responses: Readonly<Record<number, AnySchema | null>>;
  /** Error statuses the module's own errors produce (403, 404, 409, ...), for the documentation. */
  readonly problems?: ReadonlyArray<number>;
  /** The action budget a request spends (ActionBudgets.ts) and its cost, 1 when omitted; 0 spends nothing. */
  readonly budget?: { readonly name: ActionBudgetName; readonly cost?: (input: RouteInput<P, Q, B, A>) => number };
  readonly handler: (input: RouteInput<P, Q, B, A>, ctx: Context) => Effect.Effect<RouteResponse, E, R>;
}

/**
 * A route with its input types erased, as `mountRoutes` and `openApiDocument` take it. `R` is
 * what its handler needs from the host runtime (a module definition's routes must be served by
 * the module's ports and the shared ones: the composition type-checks it); `Route` alone accepts
 * any.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Route<R = any> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string | undefined;
  readonly tags: ReadonlyArray<string>;
  readonly auth: AuthMode;
  readonly idempotency: IdempotencyMode;
  readonly idempotentByItself: boolean;
  readonly ifMatch: IfMatchMode;
  readonly answersEtag?: EtagForm | undefined;
  readonly requestHeaders: ReadonlyArray<RequestHeader>;
  readonly oneTransaction: boolean;
  readonly unstored?:
    | {
        readonly fields: ReadonlyArray<string>;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        readonly reissue: (input: RouteInput<any, any, any, AuthMode>, stored: Readonly<Record<string, unknown>>) => Effect.Effect<Readonly<Record<string, unknown>>, unknown, R>;
      }
    | undefined;
  readonly pagination: boolean;
  readonly params?: AnySchema | undefined;
  readonly query?: AnySchema | undefined;
  readonly body?: AnySchema | undefined;
  readonly responses: Readonly<Record<number, AnySchema | null>>;
  readonly problems: ReadonlyArray<number>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly budget?: { readonly name: ActionBudgetName; readonly cost?: ((input: RouteInput<any, any, any, AuthMode>) => number) | undefined } | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly handler: (input: RouteInput<any, any, any, AuthMode>, ctx: Context) => Effect.Effect<RouteResponse, unknown, R>;
}

/**
 * The written idempotency policy (docs/conventions.md, Idempotency), as the default of every
 * route: an authenticated POST accepts a key (a client that sends one gets exact replays; one
 * that does not just runs); reads, unauthenticated routes, and PUT, PATCH and DELETE (idempotent
 * by HTTP semantics or guarded by If-Match versions) take none. Commands the specification marks
 * "Required" (money movement, provider calls, costly asynchronous work) declare it themselves.
 */
export const defaultIdempotency = (method: HttpMethod, auth: AuthMode): IdempotencyMode =>
  auth === "required" && method === "POST" ? "optional" : "none";

/**
 * A creation that takes no key (a secret-minting create, whose stored replay would keep the
 * secret; comments, which have `client_mutation_id`) refuses one: a client that sends it believes
 * a retry safe, and the retry would create a second resource. Public routes (provider webhooks)
 * have no caller to scope a key to and ignore it; reads, PUT, PATCH and DELETE are idempotent, and
 * so is a creation that declares `idempotentByItself`.
 */
export const refusesIdempotencyKey = (route: Pick<Route, "method" | "idempotency" | "idempotentByItself" | "auth" | "responses">): boolean =>
  route.method === "POST" && route.idempotency === "none" && !route.idempotentByItself && route.auth !== "none" && route.responses[201] !== undefined;

/** True when a body schema has a top-level `client_mutation_id` (the comments' own retry key). */
const hasClientMutationId = (body: AnySchema): boolean => {
  const ast = SchemaAST.encodedAST(body.ast);
  return SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.some((property) => property.name === "client_mutation_id");
};

/** Checks and records an endpoint definition. Throws on a definition that cannot work. */
export const defineRoute = <
  A extends AuthMode,
  P = Record<string, string>,
  Q = Record<string, unknown>,
  B = undefined,
  E = never,
  R = never,
>(
  spec: RouteSpec<P, Q, B, A, E, R>,
): Route<Exclude<R, Principal>> => {
  const where = `route ${spec.operationId} (${spec.method} ${spec.path})`;
  if (!spec.path.startsWith("/")) throw new Error(`${where}: path must start with /`);
  const idempotency = spec.idempotency ?? defaultIdempotency(spec.method, spec.auth);
  // Keys are scoped to the caller; without one, two clients could replay each other's answers.
  if (idempotency !== "none" && spec.auth !== "required") throw new Error(`${where}: idempotency requires auth`);
  const statuses = Object.keys(spec.responses).map(Number);
  if (!statuses.some((s) => s >= 200 && s < 300)) throw new Error(`${where}: responses must declare a 2xx status`);
  if (idempotency !== "none") requireBriefDataUnstored(where, spec.responses, spec.unstored?.fields ?? []);
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    auth: spec.auth,
    idempotency,
    idempotentByItself: spec.idempotentByItself ?? false,
    ifMatch: spec.ifMatch ?? "none",
    answersEtag: spec.answersEtag,
    requestHeaders: spec.requestHeaders ?? [],
    oneTransaction: spec.oneTransaction ?? false,
    unstored: spec.unstored as Route<Exclude<R, Principal>>["unstored"],
    pagination: spec.pagination ?? false,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    responses: spec.responses,
    problems: spec.problems ?? [],
    budget: spec.budget as Route["budget"],
    // The route machinery provides CurrentPrincipal (EffectHandler.runStored); the rest comes from the host runtime.
    handler: spec.handler as Route<Exclude<R, Principal>>["handler"],
  };
};

/**
 * A stored answer is kept 24 hours (core/kernel/Idempotency.ts), longer than a module may keep
 * data marked retained briefly: every such field of a 2xx answer must be a top-level field the
 * route leaves unstored (a nested one cannot be withheld: answer it at the top level instead).
 */
const requireBriefDataUnstored = (where: string, responses: Readonly<Record<number, AnySchema | null>>, unstored: ReadonlyArray<string>): void => {
  for (const [status, schema] of Object.entries(responses)) {
    if (schema === null || Number(status) < 200 || Number(status) >= 300) continue;
    for (const path of retainedBrieflyPaths(schema.ast)) {
      if (!unstored.includes(path)) {
        throw new Error(`${where}: the ${status} answer's "${path}" is retained briefly (core/kernel/RetainedBriefly.ts) and would be kept with the stored answer; list it in \`unstored\` (a top-level field) or take no Idempotency-Key`);
      }
    }
  }
};

/** What `mountRoutes` needs from the host. */
export interface MountOptions {
  /** The runtime handlers run on; it must provide every service the handlers use. */
  readonly runtime: HostRuntime;
  readonly logger?: Logger | undefined;
  /**
   * Sets `ctx.state.principal` or throws `Unauthorized`; runs on `auth: "required"` routes.
   * The reference server passes `jwtAuthentication`; an embedding host passes its own.
   */
  readonly authentication?: Middleware | undefined;
  /** Runs after authentication on every route (see RateLimit.ts); none when omitted. */
  readonly rateLimit?: Middleware | undefined;
  /** Wraps the authentication so its failures count per client IP (RateLimit.ts); none when omitted. */
  readonly authenticationGuard?: AuthenticationGuard | undefined;
  readonly limits?: Partial<Limits> | undefined;
  readonly idempotencyPolicy?: Partial<IdempotencyPolicy> | undefined;
  /** Overrides of the default action budgets (ActionBudgets.ts). */
  readonly actionBudgets?: Partial<Record<ActionBudgetName, ActionBudgetLimit>> | undefined;
  /** Where the shared action budgets count (LimiterStore.ts; this process's memory when omitted). */
  readonly limiterStore?: LimiterStore | undefined;
}

/** Registers every route on `router`, each wired the same way. */
export const mountRoutes = (router: Router, routes: ReadonlyArray<Route>, options: MountOptions): Router =>
  routeMounter(options)(router, routes);

/**
 * `mountRoutes` with what the routes share made once (action budgets, body parser, host
 * runtime), for an app that spreads its routes over several routers (RouteGroups.ts).
 */
export const routeMounter = (options: MountOptions): ((router: Router, routes: ReadonlyArray<Route>) => Router) => {
  const limits = resolveLimits(options.limits);
  const host = provideHost({ runtime: options.runtime, logger: options.logger });
  // Each route answers its own errors, so a router mounted in a host's app needs nothing else.
  const boundary: Middleware = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      respondWithError(ctx, error, options.logger);
    }
  };
  const body = jsonBody(limits);
  const spendBudget = makeActionBudgets(options.actionBudgets, options.limiterStore);
  const guardedAuthentication =
    options.authentication === undefined || options.authenticationGuard === undefined
      ? options.authentication
      : options.authenticationGuard(options.authentication);
  return (router, routes) => {
    for (const route of routes) {
      const chain: Middleware[] = [boundary, host];
      if (route.auth !== "none") {
        const authentication = guardedAuthentication;
        if (authentication === undefined) {
          throw new Error(`route ${route.operationId} requires auth but no authentication middleware was given`);
        }
        chain.push(route.auth === "required" ? authentication : (ctx, next) => (ctx.get("Authorization") === "" ? next() : authentication(ctx, next)));
      }
      if (options.rateLimit !== undefined) chain.push(options.rateLimit);
      if (route.body !== undefined) chain.push(body);
      chain.push(routeHandler(route, limits, options.idempotencyPolicy, spendBudget));
      router.register(route.path, [route.method], chain, { name: route.operationId });
    }
    return router;
  };
};

/** The terminal middleware of a route: read headers, decode, run the handler, answer. */
const routeHandler = (
  route: Route,
  limits: Limits,
  policy: Partial<IdempotencyPolicy> | undefined,
  spendBudget: SpendActionBudget,
): Middleware =>
  async (ctx) => {
    // Header syntax is checked before anything runs, so a bad header never takes a key.
    const ifMatchHeader = ctx.get("If-Match") || undefined;
    // A precondition the route cannot check is refused, never ignored (a stale client's change would run).
    if (ifMatchHeader !== undefined && route.ifMatch === "none" && route.method !== "GET") {
      throw new IfMatchNotSupported({ detail: `${route.method} ${route.path} checks no version: send it without If-Match` });
    }
    if (ctx.headers[idempotencyKeyHeader.toLowerCase()] !== undefined && refusesIdempotencyKey(route)) {
      throw new IdempotencyKeyNotSupported({
        detail: `${route.method} ${route.path} takes no Idempotency-Key: a retry creates another resource (recover a lost answer by listing${route.body !== undefined && hasClientMutationId(route.body) ? ", or send client_mutation_id" : ""})`,
      });
    }
    const ifMatch =
      route.ifMatch === "required" ? requireIfMatch(ifMatchHeader) : route.ifMatch === "optional" ? parseIfMatch(ifMatchHeader) : undefined;
    const requested = route.pagination ? pageParams(ctx.query, limits) : { limit: limits.listDefault, cursor: undefined };
    const rawParams = (ctx as Context & { params?: Record<string, string> }).params ?? {};
    const program = Effect.gen(function* () {
      const nul = nulRefusal("params", rawParams) ?? nulRefusal("query", ctx.query) ?? (route.body ? nulRefusal("body", ctx.request.body) : undefined);
      if (nul !== undefined) return yield* Effect.fail(nul);
      const params = route.params ? yield* decodeRequestPart(route.params, "params", rawParams) : rawParams;
      const query = route.query ? yield* decodeRequestPart(route.query, "query", ctx.query) : ctx.query;
      const body = route.body ? yield* decodeRequestPart(route.body, "body", ctx.request.body) : undefined;
      // Cursors are bound to the list that issued them (Pagination.ts listIdentity); a route that
      // is no list pays nothing for it.
      const list = route.pagination ? listIdentity(route.operationId, params, route.query ? query : undefined) : route.operationId;
      const bind = (cursor: string) => bindCursor(cursor, list);
      const page: PageParams = {
        limit: requested.limit,
        cursor: requested.cursor === undefined ? undefined : yield* unbindCursor(requested.cursor, list),
        bind,
      };
      const input: RouteInput<unknown, unknown, unknown, AuthMode> = {
        params,
        query,
        body,
        principal: principalOf(ctx),
        ifMatch,
        page,
        requestId: requestIdOf(ctx),
        idempotencyKey: route.idempotency === "none" ? undefined : ctx.get(idempotencyKeyHeader) || undefined,
      };
      if (route.budget !== undefined) {
        // Spent before the idempotency key is taken, so a refused request leaves no stored answer.
        // Budgets are per principal; an anonymous request counts against its client IP.
        const { name, cost } = route.budget;
        const key = input.principal === undefined ? `ip:${ctx.ip}` : principalScope(input.principal);
        yield* Effect.tryPromise({
          try: () => spendBudget(name, key, cost === undefined ? 1 : cost(input)),
          catch: (error) => error,
        });
      }
      const unstored = route.unstored;
      let withheld: Record<string, unknown> | undefined;
      const encoded = Effect.flatMap(route.handler(input, ctx), (response) => encodeResponse(route, response));
      const work =
        unstored === undefined
          ? encoded
          : Effect.map(encoded, (response) => {
              const kept = withholdFields(response, unstored.fields);
              withheld = kept.withheld;
              return kept.response;
            });
      const { response, replayed } = yield* withIdempotency(ctx, route.idempotency, work, { limits, policy, oneTransaction: route.oneTransaction });
      let answer = response;
      if (unstored !== undefined && response.status >= 200 && response.status < 300 && isBody(response.body)) {
        const fields = replayed || withheld === undefined ? yield* unstored.reissue(input, response.body) : withheld;
        answer = { ...response, body: { ...response.body, ...fields } };
      }
      if (route.pagination && answer.status >= 200 && answer.status < 300 && isBody(answer.body) && typeof answer.body.next_cursor === "string") {
        // A core's cursor always reads back, so failing to bind it is a bug.
        answer = { ...answer, body: { ...answer.body, next_cursor: yield* Effect.orDie(bind(answer.body.next_cursor)) } };
      }
      return replayed ? { ...answer, headers: { ...answer.headers, ...replayHeaders(true) } } : answer;
    });
    await runStored(ctx, program);
  };

const isBody = (body: unknown): body is Readonly<Record<string, unknown>> => typeof body === "object" && body !== null && !Array.isArray(body);

/** The answer without `fields` in its (2xx, object) body, and the fields taken out. */
const withholdFields = (response: StoredResponse, fields: ReadonlyArray<string>): { response: StoredResponse; withheld: Record<string, unknown> | undefined } => {
  if (response.status < 200 || response.status >= 300 || !isBody(response.body)) return { response, withheld: undefined };
  const body: Record<string, unknown> = { ...response.body };
  const withheld: Record<string, unknown> = {};
  for (const field of fields) {
    if (field in body) withheld[field] = body[field];
    delete body[field];
  }
  return { response: { ...response, body }, withheld };
};

/** Encodes the handler's body with the schema declared for its status. */
const encodeResponse = (route: Route, response: RouteResponse): Effect.Effect<StoredResponse> => {
  const schema = route.responses[response.status];
  // An undeclared status would make the OpenAPI document lie: treat it as a bug in the handler.
  if (schema === undefined) {
    return Effect.dieMessage(`route ${route.operationId} answered undeclared status ${response.status}`);
  }
  // So would an ETag the route does not declare (`answersEtag`).
  if (route.answersEtag === undefined && (response.etag !== undefined || response.headers?.ETag !== undefined)) {
    return Effect.dieMessage(`route ${route.operationId} answered an ETag it does not declare (answersEtag)`);
  }
  if (schema === null) return Effect.succeed(toStoredResponse({ ...response, body: undefined }));
  return Effect.map(encodeResponseBody(schema, response.body), (body) => toStoredResponse({ ...response, body }));
};
