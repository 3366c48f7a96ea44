/**
 * What one business module contributes to a host (docs/adding-a-module.md): the Layer of its
 * ports, its routes and their mount prefix, migrations, outbox consumers, jobs and recurring
 * jobs, realtime channel authorizers and channel mapping, checks of its object store grants, its
 * own bearer credentials and its CLI commands. A host composes a list of these
 * (hosts/modules/index.ts); a team embedding one module passes just that one.
 *
 * `ModuleDefinition<P, R>`: `P` are the ports its Layer provides, `R` the services its programs
 * (consumers, jobs, authorizers, grant checks, commands) need. Composition (Composition.ts)
 * checks at compile time that `R` is within what the host provides: the shared ports plus every
 * module's `P`.
 */
import { Data, type Effect, type Either, type Layer, type ManagedRuntime } from "effect";
import type { Route } from "../adapters/koa/Route.js";
import type { Migration } from "../adapters/sql/Migration.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { Consumer } from "../adapters/worker/Consumer.js";
import type { JobHandler } from "../adapters/worker/JobRunner.js";
import type { ChannelsFor } from "../adapters/worker/RealtimeConsumer.js";
import type { EventHistoryScrub } from "../core/maintenance/KernelMaintenance.js";
import type { GrantCondition, GrantRefusal } from "../ports/GrantChecks.js";
import type { Principal } from "../ports/Principal.js";

/**
 * A module's own bearer credential (e.g. merchant API keys `sk_...`): `matches` recognises the
 * token's shape without I/O; `authenticate` verifies it, failing with a typed Unauthorized.
 */
export interface BearerAuthenticator<R = never> {
  readonly name: string;
  readonly matches: (token: string) => boolean;
  readonly authenticate: (token: string) => Effect.Effect<Principal, unknown, R>;
}

/**
 * Decides whether a principal may subscribe to the channels of one kind (`project:<id>`). It
 * runs on the host runtime, so it may use any service the host provides (`R`); the host closes
 * it over its services when it builds the `ChannelAuthorizers` port (Container.ts).
 */
export interface ModuleChannelAuthorizer<R = never> {
  readonly kind: string;
  readonly authorize: (principal: Principal, channelId: string) => Effect.Effect<boolean, unknown, R>;
  /** Whether subscribers see who acted (ports/Realtime.ts `ChannelAuthorizer.showsActor`); hidden by default. */
  readonly showsActor?: boolean;
}

/**
 * Answers whether an object store grant the module issued under a condition (ports/GrantChecks.ts)
 * may still be used. It runs on the host runtime, so it may use any service the host provides
 * (`R`); the host closes it over its services when it builds the `GrantChecks` port (Container.ts).
 */
export interface ModuleGrantCheck<R = never> {
  /** The `issuer` of the conditions it answers for (one module per issuer). */
  readonly issuer: string;
  readonly holds: (claim: GrantCondition["claim"]) => Effect.Effect<void, GrantRefusal, R>;
}

/** A `domainkit <name> ...` invocation as a module command sees it (after `parseArgs`). */
export interface CommandInput {
  readonly positionals: ReadonlyArray<string>;
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
}

/** What a command prints on stdout, and the exit code (0 when omitted). */
export interface CommandOutput {
  readonly stdout: string;
  readonly exitCode?: number;
}

/** Wrong arguments: the CLI prints the message and the usage, and exits with 2. */
export class CommandUsageError extends Data.TaggedError("CommandUsageError")<{ readonly message: string }> {}

/**
 * A CLI command of a module (`domainkit merchant create ...`). `prepare` checks the arguments
 * without I/O (a usage error touches no database) and answers the program the CLI then runs on
 * the host runtime.
 */
export interface ModuleCommand<R = never> {
  /** The first word of the command line, e.g. "merchant". */
  readonly name: string;
  /** Lines for the help text, already indented as the CLI prints them. */
  readonly usage: string;
  /** Its `--flags` (util.parseArgs option shapes); `--help` is always accepted. */
  readonly options?: Readonly<Record<string, { readonly type: "string" | "boolean" }>>;
  readonly prepare: (input: CommandInput) => Either.Either<Effect.Effect<CommandOutput, unknown, R>, CommandUsageError>;
}

/** One module as a host sees it. */
export interface ModuleDefinition<P = never, R = never> {
  readonly name: string;
  /**
   * The module's ports bound to their default adapters over the host's database, e.g.
   * `Layer.Layer<ProjectsPorts, never, SqlDatabase>`. A host replaces one with `rebindPort`.
   */
  readonly layer: Layer.Layer<P, never, SqlDatabase>;
  /** Its HTTP routes; their handlers may need only the module's ports and the shared ones. */
  readonly routes: ReadonlyArray<Route<R>>;
  /**
   * Prepended to every route path when the routes are mounted (default: none, for modules whose
   * routes already carry their full `/v1/...` path), e.g. "/v1/delivery" with routes "/orders".
   */
  readonly prefix?: string;
  /** Applied by `migrate(db, modules)` after the kernel's, in the host's module order. */
  readonly migrations?: ReadonlyArray<Migration>;
  readonly consumers?: ReadonlyArray<Consumer<R>>;
  readonly jobHandlers?: ReadonlyArray<JobHandler<R>>;
  /**
   * Schedules the module's recurring jobs when a worker starts (each keyed by its slot, so any
   * number of workers scheduling at start-up yields one job per slot).
   */
  readonly scheduleRecurring?: (nowMs: number) => Effect.Effect<void, never, R>;
  readonly channelAuthorizers?: ReadonlyArray<ModuleChannelAuthorizer<R>>;
  readonly channelsFor?: ChannelsFor;
  /**
   * Shorter histories of what its events carry (e.g. an old version's personal data): kernel
   * maintenance removes those fields from the outbox and the channel logs after `afterMs`.
   */
  readonly eventHistoryScrubs?: ReadonlyArray<EventHistoryScrub>;
  /** Checks of the conditions its object store grants were issued under (downloads, upload parts). */
  readonly grantChecks?: ReadonlyArray<ModuleGrantCheck<R>>;
  /** Credentials of the module's own kind, tried before user JWTs. */
  readonly bearerAuthenticators?: ReadonlyArray<BearerAuthenticator<R>>;
  /** Its CLI commands (`domainkit <name> ...`). */
  readonly commands?: ReadonlyArray<ModuleCommand<R>>;
  /**
   * Called once with the host runtime right after it is built, for adapters that run programs of
   * another module in-process (the payment gateway) and are bound before the runtime exists.
   */
  readonly attachRuntime?: (runtime: ManagedRuntime.ManagedRuntime<R, never>) => void;
}

/** The routes of `module` as mounted: each path behind the module's prefix. */
export const mountedRoutes = <P, R>(module: ModuleDefinition<P, R>): ReadonlyArray<Route> => {
  const prefix = (module.prefix ?? "").replace(/\/+$/, "");
  if (prefix === "") return module.routes;
  if (!prefix.startsWith("/")) throw new Error(`module ${module.name}: prefix must start with / (got "${module.prefix}")`);
  return module.routes.map((route) => ({ ...route, path: `${prefix}${route.path}` }));
};
