/**
 * One bearer header, several credential kinds: a module's own authenticator (e.g. merchant API
 * keys) claims the tokens of its shape; every other token is verified as a user JWT.
 */
import t from "tap";
import { Effect, Layer, Schema } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { Unauthorized } from "../../core/kernel/Errors.js";
import type { ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { hostSecret, startReferenceServer, testConfig } from "./support.js";

const whoAmI = defineRoute({
  method: "GET",
  path: "/v1/test/whoami",
  operationId: "whoAmI",
  summary: "Echo the principal",
  tags: ["test"],
  auth: "required",
  idempotency: "none",
  responses: { 200: Schema.Unknown },
  handler: ({ principal }) => Effect.succeed({ status: 200, body: principal }),
});

const keysModule: ModuleDefinition = {
  name: "test-keys",
  layer: Layer.empty,
  routes: [whoAmI],
  bearerAuthenticators: [
    {
      name: "test-keys",
      matches: (token) => token.startsWith("tk_"),
      authenticate: (token) =>
        token === "tk_good"
          ? Effect.succeed({ kind: "merchant", merchantId: "m1", keyId: "k1", scopes: ["payments:write"] })
          : Effect.fail(new Unauthorized({ reason: "invalid" })),
    },
  ],
};

t.test("a module's bearer authenticator claims its tokens and JWTs still work", async (t) => {
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t), { modules: [identityModule, keysModule] });
  const get = (token: string) => fetch(`${server.url}/v1/test/whoami`, { headers: { Authorization: `Bearer ${token}` } });
  const merchant = await get("tk_good");
  t.equal(merchant.status, 200);
  t.same(await merchant.json(), { kind: "merchant", merchantId: "m1", keyId: "k1", scopes: ["payments:write"] });
  const refused = await get("tk_bad");
  t.equal(refused.status, 401, "a refused module credential is 401, not a JWT error or a 500");
  t.equal(refused.headers.get("content-type"), "application/problem+json");
  t.equal(((await refused.json()) as { code: string }).code, "invalid_token");
  const userId = "01a204ed-6296-76db-a32e-8d369dd5fe90";
  const user = await get(await mintToken({ secret: hostSecret, userId, ttlSeconds: 60 }));
  t.equal(user.status, 200);
  t.same(await user.json(), { kind: "user", userId });
});
