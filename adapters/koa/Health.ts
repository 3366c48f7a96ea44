/**
 * Liveness and readiness probes. `/healthz` answers 200 whenever the process serves HTTP;
 * `/readyz` also runs the host's readiness check (e.g. a database ping) and answers 503
 * `not_ready` when it fails. Neither needs authentication.
 */
import type Router from "@koa/router";
import type { Logger } from "pino";
import { NotReady } from "./HttpErrors.js";
import { requestIdOf } from "./RequestId.js";

/** A readiness check: resolves when the service can serve, rejects otherwise. */
export type Readiness = () => Promise<void>;

/** Registers GET /healthz and GET /readyz on `router`. */
export const mountHealth = (router: Router, readiness: Readiness = async () => {}, logger?: Logger): Router => {
  router.get("/healthz", (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    try {
      await readiness();
    } catch (error) {
      // The cause (which may name hosts or SQL) goes to the log, never to the caller.
      logger?.warn({ request_id: requestIdOf(ctx), err: error }, "readiness check failed");
      throw new NotReady({});
    }
    ctx.body = { status: "ok" };
  });
  return router;
};
