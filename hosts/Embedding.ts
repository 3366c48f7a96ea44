/**
 * Embedding one module in a team's own Node service: a Koa router to mount in their app behind
 * their own authentication, a Promise facade to call the core from plain code, any port
 * rebindable, and migrations they run themselves (or let `embedModule` run).
 */
import Router from "@koa/router";
import type { Container } from "inversify";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import { Effect } from "effect";
import { createLogger } from "../adapters/koa/Logging.js";
import { mountRoutes } from "../adapters/koa/Route.js";
import type { Limits } from "../adapters/koa/Limits.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { RunningWorker } from "../adapters/worker/Worker.js";
import { CurrentPrincipal, type Principal } from "../ports/Principal.js";
import { compose } from "./Composition.js";
import { migrateModules } from "./Database.js";
import { mountedRoutes, type ModuleDefinition } from "./ModuleDefinition.js";
import type { HostServices } from "./PortBindings.js";
import { createHostCore, startHostWorker, type FileOptions, type HostCore } from "./Runtime.js";

/** How a module is embedded. */
export interface EmbedOptions {
  /** An open database (openSqlite / openPostgres); the module's tables live there. */
  readonly database: SqlDatabase;
  /**
   * The host's own authentication: a Koa middleware that sets `ctx.state.principal`
   * (`{ kind: "user", userId }`) or throws. Required when the module has authenticated routes.
   */
  readonly authentication?: Middleware;
  /** Replace any port's adapter before the runtime is built: `c => rebindPort(c, Tag, adapter)`. */
  readonly rebind?: (container: Container) => void;
  /** The shared ObjectStore, Scanner and Thumbnailer (for modules that store bytes). */
  readonly files?: FileOptions;
  /** Apply the module's migrations now (default true). */
  readonly migrate?: boolean;
  /** Run the module's outbox relay and jobs in this process (default true). */
  readonly worker?: boolean;
  readonly logger?: Logger;
  readonly limits?: Partial<Limits>;
}

/** An embedded module whose Layer provides `P`. */
export interface EmbeddedModule<P> {
  /** Mount with `app.use(module.router.routes()).use(module.router.allowedMethods())`. */
  readonly router: Router;
  /** Runs any of the module's Effect programs as a Promise. */
  readonly run: <A, E>(program: Effect.Effect<A, E, HostServices<P>>) => Promise<A>;
  /** Runs a program that acts as someone (it reads `CurrentPrincipal`) as `principal`. */
  readonly runAs: <A, E>(principal: Principal, program: Effect.Effect<A, E, HostServices<P> | Principal>) => Promise<A>;
  readonly core: HostCore<P>;
  readonly worker: RunningWorker | undefined;
  /** Stops the worker, disposes the runtime and closes the bus and the database. */
  readonly close: () => Promise<void>;
}

/** Embeds `module` over `options.database`. */
export const embedModule = async <P, R extends HostServices<P>>(module: ModuleDefinition<P, R>, options: EmbedOptions): Promise<EmbeddedModule<P>> => {
  const logger = options.logger ?? createLogger({ name: `domainkit-${module.name}` });
  if (options.migrate !== false) await migrateModules(options.database, [module]);
  const core = await createHostCore({
    database: options.database,
    modules: compose().add(module),
    logger,
    ...(options.files ? { files: options.files } : {}),
    ...(options.rebind ? { rebind: options.rebind } : {}),
  });
  const router = mountRoutes(new Router(), mountedRoutes(module), {
    runtime: core.runtime,
    logger,
    authentication: options.authentication,
    limits: options.limits,
  });
  const worker = options.worker === false ? undefined : await startHostWorker(core);
  const run = <A, E>(program: Effect.Effect<A, E, HostServices<P>>): Promise<A> => core.runtime.runPromise(program);
  const runAs = <A, E>(principal: Principal, program: Effect.Effect<A, E, HostServices<P> | Principal>): Promise<A> =>
    core.runtime.runPromise(Effect.provideService(program, CurrentPrincipal, principal));
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await worker?.stop();
      await core.close();
    })());
  return { router, run, runAs, core, worker, close };
};
