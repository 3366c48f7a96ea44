/**
 * Conventions, HTTP: "Money is `*_minor` integers plus an ISO 4217 `currency`". Read from the
 * OpenAPI document of every module's routes: no success answer carries a `*_minor` amount
 * without a `currency` beside it or above it.
 */
import t from "tap";
import { openApiDocument } from "../../adapters/koa/OpenApi.js";
import type { Route } from "../../adapters/koa/Route.js";
import { commerceRoutes } from "../../adapters/koa/commerce/index.js";
import { deliveryRoutes } from "../../adapters/koa/delivery/index.js";
import { filesRoutes } from "../../adapters/koa/files/index.js";
import { identityRoutes } from "../../adapters/koa/identity/IdentityRoutes.js";
import { paymentsRoutes } from "../../adapters/koa/payments/index.js";
import { projectsRoutes } from "../../adapters/koa/projects/index.js";
import { moneyWithoutCurrency, type OpenApiDocument } from "../support/money-without-currency.js";

const routes: ReadonlyArray<Route> = [...projectsRoutes, ...filesRoutes, ...commerceRoutes, ...paymentsRoutes, ...deliveryRoutes, ...identityRoutes];

t.test("no answer of any module carries an amount without its currency", async (t) => {
  const document = openApiDocument({ title: "domainkit", version: "test", routes }) as unknown as OpenApiDocument;
  const tags = [...new Set(routes.flatMap((route) => route.tags))];
  t.ok(tags.length >= 5, `the modules' tags (${tags.join(", ")})`);
  for (const tag of tags) t.same(moneyWithoutCurrency(document, tag), [], `${tag}: every *_minor comes with a currency`);
});
