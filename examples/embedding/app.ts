/**
 * Example: a team's own Koa service embedding the projects module.
 *
 * The team keeps its own authentication (here a trusted `X-User-Id` header set by its gateway;
 * use your real session or token check), mounts the module's router next to its own routes,
 * and shares one SQLite file (or a Postgres pool) with the module's tables.
 *
 * It imports only the package's public subpaths (`domainkit/...`), as your app would after
 * `npm install domainkit`. Run it here: `npm run build && node dist/examples/embedding/app.js` then
 *   curl -X POST -H 'X-User-Id: 0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' -H 'Content-Type: application/json' \
 *        -d '{"name":"Acme"}' http://127.0.0.1:4000/v1/workspaces
 */
import Koa, { type Middleware } from "koa";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { openSqlite } from "domainkit/sqlite";
import { embedModule, type EmbeddedModule } from "domainkit/hosts";
import { projectsModule, type ProjectsPorts } from "domainkit/projects";
import { recognizeOutages } from "domainkit/koa";
import { databaseOutageOf } from "domainkit/sql";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The host's own authentication: whatever it already trusts, turned into a principal. */
const gatewayAuthentication: Middleware = async (ctx, next) => {
  const userId = ctx.get("X-User-Id");
  if (!uuid.test(userId)) {
    ctx.status = 401;
    ctx.body = { error: "sign in first" };
    return;
  }
  ctx.state.principal = { kind: "user", userId: userId.toLowerCase() };
  await next();
};

/** The running example: its URL, the embedded module, and how to stop both. */
export interface EmbeddingExample {
  readonly url: string;
  readonly projects: EmbeddedModule<ProjectsPorts>;
  readonly close: () => Promise<void>;
}

/** Starts the team's app with the projects module mounted. */
export const startEmbeddingExample = async (options: { readonly filename: string; readonly port: number }): Promise<EmbeddingExample> => {
  const database = await openSqlite({ filename: options.filename });
  const projects = await embedModule(projectsModule, { database, authentication: gatewayAuthentication });
  const app = new Koa();
  // A request that fails because the database is down answers 503 with Retry-After, not 500.
  recognizeOutages(app, databaseOutageOf);
  // The team's own route, next to the module's.
  app.use(async (ctx, next) => {
    if (ctx.path === "/hello") ctx.body = { hello: "from the host app" };
    else await next();
  });
  app.use(projects.router.routes()).use(projects.router.allowedMethods());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await projects.close();
  };
  return { url, projects, close };
};

// Started directly: serve on port 4000 with ./embedding-example.sqlite until interrupted.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const example = await startEmbeddingExample({ filename: "./embedding-example.sqlite", port: 4000 });
  process.stdout.write(`embedding example listening on ${example.url}\n`);
  process.once("SIGINT", () => void example.close().then(() => process.exit(0)));
}
