/**
 * Embedding one module in a team's own Koa app: the module's router mounted behind the host's
 * own authentication, the Promise facade, and rebinding a port before the runtime is built.
 */
import t from "tap";
import Koa from "koa";
import type { AddressInfo } from "node:net";
import { Effect } from "effect";
import { embedModule } from "../../hosts/Embedding.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { revokeSessions } from "../../core/identity/RevokeSessions.js";
import { rebindPort } from "../../hosts/PortBindings.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { forEachDialect, openTestDatabase } from "../support/databases.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe89";

t.test("a host mounts the module router behind its own authentication", (t) =>
  forEachDialect(t, "embedded router", async (t, database) => {
    const embedded = await embedModule(identityModule, {
      database,
      worker: false,
      // The host's own scheme: a trusted header set by its gateway.
      authentication: async (ctx, next) => {
        const user = ctx.get("X-Host-User");
        if (user === "") {
          ctx.status = 401;
          ctx.body = { host: "says no" };
          return;
        }
        ctx.state.principal = { kind: "user", userId: user };
        await next();
      },
    });
    t.teardown(() => embedded.close());
    const app = new Koa();
    app.use(embedded.router.routes()).use(embedded.router.allowedMethods());
    const server = app.listen(0, "127.0.0.1");
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await new Promise((resolve) => server.once("listening", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const refused = await fetch(`${url}/v1/sessions/revoke`, { method: "POST" });
    t.equal(refused.status, 401, "the host's authentication decides");
    const accepted = await fetch(`${url}/v1/sessions/revoke`, { method: "POST", headers: { "X-Host-User": userId } });
    t.equal(accepted.status, 200);
    t.same(await accepted.json(), { user_id: userId, epoch: 1 });
    t.equal(await embedded.run(revokeSessions(userId)), 2, "the Promise facade runs the same core on the same store");
  }),
);

t.test("embedding a module with authenticated routes but no authentication is refused at wiring time", async (t) => {
  const database = await openTestDatabase("sqlite", t);
  await t.rejects(embedModule(identityModule, { database, worker: false }), /requires auth but no authentication middleware/);
});

t.test("any port can be rebound before the runtime is built", async (t) => {
  const bumped: string[] = [];
  const database = await openTestDatabase("sqlite", t);
  const embedded = await embedModule(identityModule, {
    database,
    worker: false,
    authentication: async (ctx, next) => {
      ctx.state.principal = { kind: "user", userId };
      await next();
    },
    rebind: (container) =>
      // Typed: the adapter must be a UserEpochs.
      rebindPort(container, UserEpochs, {
        current: () => Effect.succeed(41),
        standing: () => Effect.succeed({ epoch: 41, revokedAt: null }),
        bump: (id: string) => Effect.sync(() => (bumped.push(id), 42)),
      }),
  });
  t.teardown(() => embedded.close());
  t.equal(await embedded.run(revokeSessions(userId)), 42, "the rebound adapter answered");
  t.same(bumped, [userId]);
  t.equal(await embedded.run(Effect.flatMap(UserEpochs, (e) => e.current(userId))), 41);
});
