/**
 * An embedding host gets the same metrics from the module it mounts, registered in its own
 * prom-client registry (observeHost + its rebind, middleware and mountMetrics).
 */
import t from "tap";
import Koa from "koa";
import Router from "@koa/router";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { embedModule } from "../../hosts/Embedding.js";
import { rebindPort } from "../../hosts/PortBindings.js";
import { Transactions } from "../../ports/Transactions.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { observeHost } from "../../adapters/observability/Observability.js";
import { mountMetrics } from "../../adapters/observability/HttpMetrics.js";
import { metricsFor } from "../../adapters/observability/Metrics.js";
import { openTestDatabase } from "../support/databases.js";
import { parseMetrics, scrape, valueOf } from "./support.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe92";

t.test("an embedding host's own registry gets the module's request, transaction and outbox metrics", async (t) => {
  const registry = new Registry();
  registry.setDefaultLabels({ service: "host-app" });
  const database = await openTestDatabase("sqlite", t);
  const observed = observeHost({ registry, database, modules: [identityModule.name], processMetrics: false });
  t.teardown(() => observed.close());
  const embedded = await embedModule(identityModule, {
    database,
    worker: false,
    rebind: (container) => rebindPort(container, Transactions, observed.transactions),
    authentication: async (ctx, next) => {
      ctx.state.principal = { kind: "user", userId: ctx.get("X-Host-User") };
      await next();
    },
  });
  t.teardown(() => embedded.close());
  const app = new Koa();
  const own = new Router();
  mountMetrics(own, observed.metrics);
  app.use(observed.middleware);
  app.use(own.routes());
  app.use(embedded.router.routes()).use(embedded.router.allowedMethods());
  const server = app.listen(0, "127.0.0.1");
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const before = await scrape(url);
  t.equal((await fetch(`${url}/v1/sessions/revoke`, { method: "POST", headers: { "X-Host-User": userId } })).status, 200);
  const after = parseMetrics(await registry.metrics());
  const labels = { route: "/v1/sessions/revoke", method: "POST", status: "200", service: "host-app" };
  t.equal(valueOf(after, "domainkit_http_request_duration_seconds_count", labels) - valueOf(before, "domainkit_http_request_duration_seconds_count", labels), 1);
  t.ok(valueOf(after, "domainkit_db_transaction_duration_seconds_count", { outcome: "commit", service: "host-app" }) >= 1, "the revoke's transaction was timed");
  t.ok(after.has('domainkit_outbox_backlog{service="host-app"}'), "state gauges are in the host's registry");
  t.notOk([...after.keys()].some((key) => key.startsWith("domainkit_webhook_deliveries")), "no payments gauges without the payments module");
  t.equal(metricsFor(registry), observed.metrics, "asking again for the registry's metrics answers the same set");
});
