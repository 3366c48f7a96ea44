/**
 * What one business module contributes to a host: its routes, migrations, outbox consumers,
 * job handlers, realtime channels and any module-specific ports. Hosts compose these; a team
 * embedding one module passes just that one.
 */
import type { Context, Effect } from "effect";
import type { Route } from "../adapters/koa/Route.js";
import type { Migration } from "../adapters/sql/Migration.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import type { Consumer } from "../adapters/worker/Consumer.js";
import type { JobHandler } from "../adapters/worker/JobRunner.js";
import type { ChannelsFor } from "../adapters/worker/RealtimeConsumer.js";
import type { ChannelAuthorizer } from "../ports/Realtime.js";
import type { Principal } from "../ports/Principal.js";
import type { DomainRuntime } from "./Runtime.js";

/**
 * A module's own bearer credential (e.g. merchant API keys `sk_...`): `matches` recognises the
 * token's shape without I/O; `authenticate` verifies it, failing with a typed Unauthorized.
 */
export interface BearerAuthenticator {
  readonly name: string;
  readonly matches: (token: string) => boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly authenticate: (token: string) => Effect.Effect<Principal, unknown, any>;
}

/** A module-specific port and how the default composition builds it. */
export interface PortBinding {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly tag: Context.Tag<any, any>;
  readonly make: (database: SqlDatabase) => unknown;
}

/** One module as a host sees it. */
export interface ModuleDefinition {
  readonly name: string;
  readonly routes: ReadonlyArray<Route>;
  readonly migrations?: ReadonlyArray<Migration>;
  // Consumers and handlers run on the host runtime, which provides every bound port.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly consumers?: ReadonlyArray<Consumer<any>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly jobHandlers?: ReadonlyArray<JobHandler<any>>;
  readonly channelAuthorizers?: ReadonlyArray<ChannelAuthorizer>;
  readonly channelsFor?: ChannelsFor;
  readonly ports?: ReadonlyArray<PortBinding>;
  /** Credentials of the module's own kind, tried before user JWTs. */
  readonly bearerAuthenticators?: ReadonlyArray<BearerAuthenticator>;
  /**
   * Called once with the host runtime right after it is built, for adapters that run other
   * modules' programs in-process (the payment gateway) and are bound before the runtime exists.
   */
  readonly attachRuntime?: (runtime: DomainRuntime) => void;
  /**
   * Schedules the module's recurring jobs when a worker starts (each keyed by its slot, so any
   * number of workers scheduling at start-up yields one job per slot).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly scheduleRecurring?: (nowMs: number) => Effect.Effect<void, never, any>;
}
