/**
 * Typed composition: what a module needs is checked when it is composed (compile-time cases are
 * `@ts-expect-error` lines: the build fails if they stop being errors), a rebound port must have
 * the port's type, and the runtime is built from the modules' Layers.
 */
import t from "tap";
import { Effect, Layer, Schema } from "effect";
import { createLogger } from "../../adapters/koa/Logging.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { revokeSessions } from "../../core/identity/RevokeSessions.js";
import { compose } from "../../hosts/Composition.js";
import { mountedRoutes, type ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { rebindPort } from "../../hosts/PortBindings.js";
import { createHostCore } from "../../hosts/Runtime.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { makePaymentGatewayModule } from "../../hosts/modules/paymentGateway.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { ChannelAuthorizers } from "../../ports/Realtime.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { openTestDatabase } from "../support/databases.js";

// Never called: these lines only have to (not) compile.
export const compileTimeChecks = () => {
  // @ts-expect-error the payment gateway's programs need the payment module's ports, not composed yet
  compose().add(makePaymentGatewayModule());
  compose().add(paymentsModule).add(makePaymentGatewayModule());
  rebindPort(undefined as never, UserEpochs, {
    // @ts-expect-error an adapter of the wrong type does not bind
    current: () => Effect.succeed("not a number"),
    bump: () => Effect.succeed(1),
  });
  // A route's handler needs the projects ports: a module that does not provide them cannot carry it ...
  const projectRoute = defineRoute({
    method: "GET",
    path: "/v1/projects/:id/count",
    operationId: "countProject",
    summary: "needs ProjectsRepository",
    tags: ["test"],
    auth: "none",
    responses: { 200: Schema.Unknown },
    handler: () => Effect.map(ProjectsRepository, () => ({ status: 200, body: {} })),
  });
  // @ts-expect-error the route's handler needs ProjectsRepository, which this module's host runtime lacks
  const orphan: ModuleDefinition<never, never> = { name: "orphan", layer: Layer.empty, routes: [projectRoute] };
  // ... and one that needs them is composed only after a module providing them.
  const needsProjects: ModuleDefinition<never, ProjectsRepository> = { name: "needs-projects", layer: Layer.empty, routes: [projectRoute] };
  // @ts-expect-error the projects ports are not composed yet
  compose().add(needsProjects);
  compose().add(projectsModule).add(needsProjects);
  void orphan;
  const runtime = compose().add(projectsModule);
  // The composition's type names the module's ports: the runtime built from it provides them.
  const layer: Layer.Layer<ProjectsRepository, never, unknown> = runtime.layer;
  return layer;
};

const pingRoute = defineRoute({
  method: "GET",
  path: "/orders",
  operationId: "listOrders",
  summary: "List orders",
  tags: ["test"],
  auth: "none",
  idempotency: "none",
  responses: { 200: Schema.Unknown },
  handler: () => Effect.succeed({ status: 200, body: [] }),
});

t.test("a module's prefix is prepended when its routes are mounted", async (t) => {
  const module: ModuleDefinition = { name: "delivery", layer: Layer.empty, routes: [pingRoute], prefix: "/v1/delivery/" };
  t.same(mountedRoutes(module).map((r) => r.path), ["/v1/delivery/orders"]);
  t.same(mountedRoutes({ ...module, prefix: undefined }).map((r) => r.path), ["/orders"], "no prefix: the route's own path");
  t.throws(() => mountedRoutes({ ...module, prefix: "v1" }), /prefix must start with \//);
});

t.test("a module is composed once", async (t) => {
  t.throws(() => compose().add(identityModule).add(identityModule), /composed twice/);
  t.same(compose().add(identityModule).add(projectsModule).modules.map((m) => m.name), ["identity", "projects"]);
});

t.test("the runtime provides the modules' ports, rebound adapters replace them, authorizers are typed", async (t) => {
  const database = await openTestDatabase("sqlite", t);
  const bumped: string[] = [];
  const core = await createHostCore({
    database,
    modules: compose().add(identityModule).add(projectsModule),
    logger: createLogger({ level: "silent" }),
    rebind: (container) =>
      rebindPort(container, UserEpochs, { current: () => Effect.succeed(7), standing: () => Effect.succeed({ epoch: 7, revokedAt: null }), bump: (id) => Effect.sync(() => (bumped.push(id), 8)) }),
  });
  t.teardown(core.close);
  t.equal(await core.runtime.runPromise(revokeSessions("u1")), 8, "the rebound UserEpochs answered");
  t.same(bumped, ["u1"]);
  t.ok(await core.runtime.runPromise(Effect.map(ProjectsRepository, (r) => typeof r === "object")), "the module's repository is provided");
  const allowed = await core.runtime.runPromise(
    Effect.flatMap(ChannelAuthorizers, (a) => a.forKind("project")?.authorize({ kind: "user", userId: "u1" }, "no-such-project") ?? Effect.succeed(true)),
  );
  t.equal(allowed, false, "the project authorizer ran with the host's repositories and refused an unknown project");
});
