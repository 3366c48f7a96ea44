/**
 * WorkSignals on Postgres: `notify` is one `pg_notify` per transaction (Postgres delivers it only
 * on commit, to every process); for "outbox" the database sends it itself (the outbox's insert
 * trigger, kernel migration 3), so an append costs no extra round trip. The worker loops of a
 * process share one LISTEN connection, held while at least one of them listens, which fans each
 * notice out through the in-process signals. A pool-side in-process wake-up is not needed: this process hears its own notices.
 */
import { Effect } from "effect";
import { workKinds, type WorkKind, type WorkSignals } from "../../ports/WorkSignals.js";
import type { InProcessWorkSignals } from "../sql/InProcessWorkSignals.js";
import { listenPostgres, type PostgresListener } from "./PostgresListener.js";
import type { PostgresNotify } from "./PostgresNotify.js";
import { withSpan } from "../../core/kernel/Span.js";

/** The NOTIFY channel of work signals; the payload is the WorkKind. */
export const WORK_CHANNEL = "domainkit_work";

/** Kinds whose notice the database sends itself on commit (adapters/sql/kernelMigrations.ts, version 3). */
const notifiedByTrigger: ReadonlySet<WorkKind> = new Set(["outbox"]);

/** What the Postgres signals are built from. */
export interface PostgresWorkSignalsOptions {
  /** Identifies the database: every adapter instance on one key shares one LISTEN connection. */
  readonly key: object;
  readonly connectionString: string;
  /** The local fan-out to this process's waiting loops. */
  readonly local: InProcessWorkSignals;
  /** Sends a notice, in the open transaction if any (so it follows its commit). */
  readonly notify: PostgresNotify;
  /** Runs a step once per open transaction (every time outside one). */
  readonly oncePerTransaction: (key: string, effect: Effect.Effect<void>) => Effect.Effect<void>;
}

/** The LISTEN connection of one database and how many loops use it. */
interface SharedListener {
  users: number;
  listener: PostgresListener | undefined;
}

const shared = new WeakMap<object, SharedListener>();

const isWorkKind = (payload: string): payload is WorkKind => (workKinds as ReadonlyArray<string>).includes(payload);

/** WorkSignals over LISTEN/NOTIFY. */
export const postgresWorkSignals = (options: PostgresWorkSignalsOptions): WorkSignals => {
  let state = shared.get(options.key);
  if (state === undefined) {
    state = { users: 0, listener: undefined };
    shared.set(options.key, state);
  }
  const connection = state;
  const acquire = Effect.sync(() => {
    connection.users += 1;
    if (connection.listener !== undefined) return;
    connection.listener = listenPostgres(options.connectionString, WORK_CHANNEL, {
      onPayload: (payload) => {
        if (isWorkKind(payload)) options.local.emit(payload);
      },
      // Notices sent before LISTEN was (re)established are lost: one pass of each kind catches up.
      onReady: () => {
        for (const kind of workKinds) options.local.emit(kind);
      },
    });
  });
  const release = Effect.suspend(() => {
    connection.users -= 1;
    const listener = connection.listener;
    if (connection.users > 0 || listener === undefined) return Effect.void;
    connection.listener = undefined;
    return Effect.promise(() => listener.close());
  });
  return {
    notify: (kind) =>
      notifiedByTrigger.has(kind)
        ? Effect.void
        : options
            .oncePerTransaction(`work-signal:${kind}`, options.notify(WORK_CHANNEL, kind))
            .pipe(withSpan("WorkSignals.notify")),
    listen: (kind) => Effect.zipRight(Effect.acquireRelease(acquire, () => release), options.local.listen(kind)),
  };
};
