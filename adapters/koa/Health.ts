/**
 * Liveness and readiness probes. `/healthz` answers 200 whenever the process serves HTTP (no
 * I/O: it must stay as cheap as an empty route). `/readyz` runs the host's readiness: either one
 * check function (200 `{status: "ok"}` or 503 `not_ready`), or a list of named dependency checks,
 * answered with each dependency's state and 503 `not_ready` while any required one is down; once
 * the server is shutting down (Server.ts: its shutdown delay, then the drain), 503 `draining`.
 * Causes (which may name hosts or SQL) go to the log, never to the caller. No authentication.
 */
import type Router from "@koa/router";
import type { Logger } from "pino";
import { NotReady } from "./HttpErrors.js";
import { makeProblem, renderProblem } from "./ProblemJson.js";
import { requestIdOf } from "./RequestId.js";
import { isDraining } from "./Server.js";

/** One dependency of the service. */
export interface DependencyCheck {
  /** Shown in the /readyz body, e.g. `database`. */
  readonly name: string;
  /** A required dependency that is down makes /readyz answer 503. */
  readonly required: boolean;
  /** Resolves when the dependency works, rejects otherwise. */
  readonly check: () => Promise<void>;
}

/** A readiness check (resolves when the service can serve), or the list of its dependencies. */
export type Readiness = (() => Promise<void>) | ReadonlyArray<DependencyCheck>;

/** How long one dependency check may take before it counts as down. */
export const readinessTimeoutMs = 2_000;

/** A dependency's state as /readyz reports it. */
export interface DependencyState {
  readonly status: "up" | "down";
  readonly required: boolean;
  readonly duration_ms: number;
}

const withTimeout = async (check: () => Promise<void>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/** Runs every check at once; answers each one's state and the causes of the failures. */
export const runDependencyChecks = async (
  checks: ReadonlyArray<DependencyCheck>,
  timeoutMs = readinessTimeoutMs,
): Promise<{ ready: boolean; states: Record<string, DependencyState>; failures: Record<string, unknown> }> => {
  const states: Record<string, DependencyState> = {};
  const failures: Record<string, unknown> = {};
  await Promise.all(
    checks.map(async (dependency) => {
      const started = performance.now();
      let status: "up" | "down" = "up";
      try {
        await withTimeout(dependency.check, timeoutMs);
      } catch (error) {
        status = "down";
        failures[dependency.name] = error;
      }
      states[dependency.name] = { status, required: dependency.required, duration_ms: Math.round(performance.now() - started) };
    }),
  );
  const ready = checks.every((c) => !c.required || states[c.name]?.status === "up");
  return { ready, states, failures };
};

/** Registers GET /healthz and GET /readyz on `router`. */
export const mountHealth = (router: Router, readiness: Readiness = async () => {}, logger?: Logger): Router => {
  router.get("/healthz", (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    if (isDraining(ctx)) {
      // The load balancer's cue to route elsewhere; requests that still arrive are served.
      renderProblem(ctx, { status: 503, body: makeProblem(503, "draining", "The server is shutting down."), headers: {} });
      return;
    }
    if (typeof readiness === "function") {
      try {
        await readiness();
      } catch (error) {
        logger?.warn({ request_id: requestIdOf(ctx), err: error }, "readiness check failed");
        throw new NotReady({});
      }
      ctx.body = { status: "ok" };
      return;
    }
    const { ready, states, failures } = await runDependencyChecks(readiness);
    for (const [name, error] of Object.entries(failures)) {
      logger?.warn({ request_id: requestIdOf(ctx), dependency: name, required: states[name]?.required, err: error }, "dependency check failed");
    }
    if (ready) {
      ctx.body = { status: "ok", checks: states };
      return;
    }
    const down = Object.entries(states)
      .filter(([, state]) => state.required && state.status === "down")
      .map(([name]) => name);
    renderProblem(ctx, {
      status: 503,
      body: makeProblem(503, "not_ready", `required dependencies down: ${down.join(", ")}`, { checks: states }),
      headers: { "Retry-After": "5" },
    });
  });
  return router;
};
