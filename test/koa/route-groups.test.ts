/**
 * The app dispatches module routes by their path's first two segments (RouteGroups.ts) instead of
 * testing every route's pattern on every request. Routing must answer exactly as one router did:
 * case-insensitive paths, an optional trailing slash, 405 with the Allow of every matching route
 * (the host's raw routes included), 404 for unknown paths, and routes whose prefix holds a
 * parameter still matched.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { defineRoute } from "../../adapters/koa/Route.js";
import { routeGroupOf } from "../../adapters/koa/RouteGroups.js";
import { fixtureRoutes } from "./routes.fixture.js";
import { aliceId, call, startTestApp, tokenFor } from "./support.js";

const open = (path: string, answer: string) =>
  defineRoute({
    method: "GET",
    path,
    operationId: `open${answer}`,
    summary: "An open route",
    tags: ["test"],
    auth: "none",
    idempotency: "none",
    responses: { 200: Schema.Struct({ answer: Schema.String }) },
    handler: () => Effect.succeed({ status: 200, body: { answer } }),
  });

t.test("a path's group is its first two segments, lower-cased, trailing slash ignored", async (t) => {
  t.equal(routeGroupOf("/v1/nodes/123/children"), "/v1/nodes");
  t.equal(routeGroupOf("/V1/Nodes"), "/v1/nodes");
  t.equal(routeGroupOf("/v1/activity/"), "/v1/activity");
  t.equal(routeGroupOf("/orders/"), "/orders");
  t.equal(routeGroupOf("/healthz"), "/healthz");
  t.equal(routeGroupOf("/"), "/");
});

t.test("grouped routing answers as one router did", async (t) => {
  const app = await startTestApp(t, {
    routes: [...fixtureRoutes, open("/v1/groups/a", "a"), open("/v1/other/b", "b"), open("/single", "single")],
    configureRouter: (router) => router.post("/v1/groups/a", (ctx) => (ctx.body = { raw: true })),
  });
  const auth = { authorization: `Bearer ${await tokenFor(aliceId)}` };

  t.test("routes of different groups are both reached", async (t) => {
    t.same((await call(`${app.url}/v1/groups/a`)).body, { answer: "a" });
    t.same((await call(`${app.url}/v1/other/b`)).body, { answer: "b" });
    t.equal((await call(`${app.url}/v1/things`, { headers: auth })).status, 200);
  });

  t.test("paths match case-insensitively and with a trailing slash, as the router does", async (t) => {
    t.same((await call(`${app.url}/V1/Groups/A`)).body, { answer: "a" });
    t.same((await call(`${app.url}/single/`)).body, { answer: "single" });
  });

  t.test("405 lists the methods of the module route and the host's raw route on one path", async (t) => {
    const res = await call(`${app.url}/v1/groups/a`, { method: "DELETE" });
    t.equal(res.status, 405);
    t.equal(res.body?.code, "method_not_allowed");
    const allow = res.headers.get("allow") ?? "";
    t.match(allow, /GET/);
    t.match(allow, /POST/);
  });

  t.test("an unknown path in a known group, and an unknown group, answer 404 route_not_found", async (t) => {
    t.equal((await call(`${app.url}/v1/groups/zzz`)).body?.code, "route_not_found");
    t.equal((await call(`${app.url}/v1/nowhere/x`)).body?.code, "route_not_found");
  });
});

t.test("a route whose first two segments hold a parameter is still matched (no grouping then)", async (t) => {
  const app = await startTestApp(t, { routes: [open("/v1/:kind/x", "param"), open("/v1/fixed/y", "fixed")] });
  t.same((await call(`${app.url}/v1/anything/x`)).body, { answer: "param" });
  t.same((await call(`${app.url}/v1/fixed/y`)).body, { answer: "fixed" });
});
