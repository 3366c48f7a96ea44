/**
 * Conventions, Lists: "Every list answers {"data": [...], "next_cursor": "<opaque>"}" with query
 * `cursor` and `limit` (default 50, at most 200); Limits: "Every list ... has a bound". Read from
 * the route table of every module: a list answer carries `next_cursor`, and a list that takes no
 * `limit`/`cursor` is one whose bound is documented (its `next_cursor` is always null).
 */
import { SchemaAST } from "effect";
import t from "tap";
import type { Route } from "../../adapters/koa/Route.js";
import { commerceRoutes } from "../../adapters/koa/commerce/index.js";
import { deliveryRoutes } from "../../adapters/koa/delivery/index.js";
import { filesRoutes } from "../../adapters/koa/files/index.js";
import { identityRoutes } from "../../adapters/koa/identity/IdentityRoutes.js";
import { paymentsRoutes } from "../../adapters/koa/payments/index.js";
import { projectsRoutes } from "../../adapters/koa/projects/index.js";

const routes: ReadonlyArray<Route> = [...projectsRoutes, ...filesRoutes, ...commerceRoutes, ...paymentsRoutes, ...deliveryRoutes, ...identityRoutes];

/** The top-level field names of an answer's wire form, with whether each is an array. */
const topFields = (ast: SchemaAST.AST): ReadonlyMap<string, SchemaAST.AST> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return new Map(ast.propertySignatures.map((p) => [String(p.name), p.type]));
    case "Transformation":
    case "Refinement":
      return topFields(ast.from);
    case "Suspend":
      return topFields(ast.f());
    default:
      return new Map();
  }
};
const isArray = (ast: SchemaAST.AST): boolean =>
  ast._tag === "TupleType" || ((ast._tag === "Refinement" || ast._tag === "Transformation") && isArray(ast.from)) || (ast._tag === "Suspend" && isArray(ast.f()));

/** Lists answered whole, one page with `next_cursor: null`, and the bound that keeps them short (docs/decisions.md). */
const boundedLists = new Map([
  ["listCourierOffers", "a courier's live offers: a handful (offer fan-out)"],
  ["listSubstitutions", "one proposal per order line"],
  ["getOrderSettlement", "four settlement entries per order"],
  ["getVariantStock", "one row per location, at most 200 per store"],
  ["listCustomFields", "at most 100 custom fields per project"],
  ["listTaskFieldValues", "the project's fields, at most 100"],
  ["listSavedViews", "at most 50 views per project"],
]);

const lists = routes.filter((route) => {
  const ok = route.responses[200];
  return route.method === "GET" && ok !== undefined && ok !== null && isArray(topFields(ok.ast).get("data") ?? SchemaAST.neverKeyword);
});

t.test("every list answers {data, next_cursor}", async (t) => {
  t.ok(lists.length >= 30, `the lists are found (${lists.length})`);
  for (const route of lists) t.ok(topFields(route.responses[200]!.ast).has("next_cursor"), `${route.operationId} (${route.path}) answers next_cursor`);
});

t.test("every list takes limit and cursor, or its bound is documented and it answers one page", async (t) => {
  for (const route of lists) {
    if (route.pagination) continue;
    t.ok(boundedLists.has(route.operationId), `${route.operationId} (${route.path}) pages with limit and cursor, or is a documented bounded list`);
  }
  const names = new Set(lists.map((route) => route.operationId));
  for (const name of boundedLists.keys()) t.ok(names.has(name), `${name} is still a list of the route table`);
});

/**
 * Answers that are one resource holding arrays, not lists: each array has a bound, so the resource
 * is answered whole (docs/decisions.md). Any other read answering a top-level array outside `data`
 * would be a list outside the envelope, with no page and no bound.
 */
const boundedResources = new Map([
  ["listTaskDependencies", "a task's dependency set: 200 edges over blocked_by and blocking together"],
  ["getUpload", "an upload's parts: the file size over the part size (5 GiB / 8 MiB = 640 by default)"],
  ["getProduct", "a product's variants: 1 to 100"],
  ["getCart", "a cart's lines: at most 100"],
  ["getOrder", "an order's lines (a cart's, at most 100) and the first page of its timeline (GET /v1/orders/:id/timeline pages the rest)"],
  ["getReturn", "a return's lines: at most the order's"],
  ["getReconciliationException", "an exception's outcomes: one per action (opened, resolved, settled; UNIQUE (exception_id, action))"],
  ["getMenu", "a menu's items: 1 to 500"],
  ["getDeliveryOrder", "a delivery order's lines: at most 100"],
]);

t.test("a read answering a top-level array outside `data` is a documented bounded resource, never a list outside the envelope", async (t) => {
  const found = new Set<string>();
  for (const route of routes) {
    if (route.method !== "GET") continue;
    for (const [status, schema] of Object.entries(route.responses)) {
      if (schema === null || Number(status) >= 300) continue;
      const arrays = [...topFields(schema.ast)].filter(([name, ast]) => name !== "data" && isArray(ast)).map(([name]) => name);
      if (arrays.length === 0) continue;
      found.add(route.operationId);
      t.ok(boundedResources.has(route.operationId), `${route.operationId} (${route.path}) answers ${arrays.join(", ")}: a documented bounded resource`);
    }
  }
  for (const name of boundedResources.keys()) t.ok(found.has(name), `${name} still answers its arrays`);
});
