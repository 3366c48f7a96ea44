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
