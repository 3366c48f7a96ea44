/**
 * Route dispatch by path prefix. @koa/router tests every registered route's pattern against each
 * request, so its cost grows with the number of routes (about 170 in the reference server with
 * five modules). The app therefore keeps one router per route group — the first two segments of
 * the route's path (`/v1/nodes`, `/v1/delivery`) — and hands a request only to the router of its
 * own path's group: a lookup in a Map instead of a scan of every module's routes.
 *
 * Matching is unchanged: a path can only match routes of its own group, because every route of a
 * group starts with the group's two literal segments. When some route's first two segments hold
 * a parameter (`/v1/:kind/...`), that route could match paths of any group, so the routes are not
 * grouped at all (one router, as before).
 */
import Router from "@koa/router";

/** What `router.routes()` answers: a Koa middleware over the router's context. */
type RouterMiddleware = ReturnType<Router["routes"]>;
/** The same signature without the `router` property: the middleware that dispatches to groups. */
type GroupDispatch = (ctx: Parameters<RouterMiddleware>[0], next: Parameters<RouterMiddleware>[1]) => ReturnType<RouterMiddleware>;

/**
 * The group of a path: its first two segments, lower-cased like the router's matching
 * (`/v1/Nodes/123/children` → `/v1/nodes`), with a trailing slash ignored as the router does.
 */
export const routeGroupOf = (path: string): string => {
  const first = path.indexOf("/", 1);
  const second = first === -1 ? -1 : path.indexOf("/", first + 1);
  const end = second !== -1 ? second : path.length > 1 && path.endsWith("/") ? path.length - 1 : path.length;
  return path.slice(0, end).toLowerCase();
};

const hasParameterPrefix = (path: string): boolean => /[:*(]/.test(routeGroupOf(path));

/**
 * Routes registered by `register` on one router per group, dispatched by the request path's
 * group. Requests of no group pass through untouched (the app's fallback answers 404/405).
 * `register(router, routes)` must register exactly `routes` on `router`.
 */
export const groupedRoutes = <R extends { readonly path: string }>(
  routes: ReadonlyArray<R>,
  register: (router: Router, routes: ReadonlyArray<R>) => void,
): GroupDispatch => {
  if (routes.some((route) => hasParameterPrefix(route.path))) {
    const router = new Router();
    register(router, routes);
    return router.routes();
  }
  const byGroup = new Map<string, R[]>();
  for (const route of routes) {
    const group = routeGroupOf(route.path);
    const members = byGroup.get(group);
    if (members === undefined) byGroup.set(group, [route]);
    else members.push(route);
  }
  const dispatch = new Map<string, RouterMiddleware>();
  for (const [group, members] of byGroup) {
    const router = new Router();
    register(router, members);
    dispatch.set(group, router.routes());
  }
  return (ctx, next) => {
    const middleware = dispatch.get(routeGroupOf(ctx.path));
    return middleware === undefined ? next() : middleware(ctx, next);
  };
};
