/**
 * WorkSignals on Postgres. After a transaction commits, `notify` wakes this process's loops of
 * that kind at once; when the process has none (a server whose worker runs as `domainkit
 * worker`), it asks for a `pg_notify` to every process instead, sent outside the transaction and
 * folded with other commits' (CoalescedNotices.ts). No write transaction notifies, so none waits
 * on Postgres' notify lock at commit; a process that takes its own work sends no notice at all;
 * a rolled-back transaction signals nothing. The worker loops of a process share one LISTEN
 * connection, held while at least one of them listens, which fans each notice out through the
 * in-process signals.
 */
import { Effect } from "effect";
import { workKinds, type WorkKind, type WorkSignals } from "../../ports/WorkSignals.js";
import type { DeferToCommit, InProcessWorkSignals } from "../sql/InProcessWorkSignals.js";
import { listenPostgres, type PostgresListener } from "./PostgresListener.js";
import type { RequestNotice } from "./CoalescedNotices.js";

/** The NOTIFY channel of work signals; the payload is the WorkKind. */
export const WORK_CHANNEL = "domainkit_work";

/** What the Postgres signals are built from. */
export interface PostgresWorkSignalsOptions {
  /** Identifies the database: every adapter instance on one key shares one LISTEN connection. */
  readonly key: object;
  readonly connectionString: string;
  /** The local fan-out to this process's waiting loops. */
  readonly local: InProcessWorkSignals;
  /** Runs a hook once the open transaction commits (at once outside one). */
  readonly deferToCommit: DeferToCommit;
  /** Asks for a notice of a kind on {@link WORK_CHANNEL} to every process, sent after the commits so far. */
  readonly requestNotice: RequestNotice;
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
      options.deferToCommit(`work-signal:${kind}`, () => {
        if (options.local.listening(kind)) options.local.emit(kind);
        else options.requestNotice(kind);
      }),
    listen: (kind) => Effect.zipRight(Effect.acquireRelease(acquire, () => release), options.local.listen(kind)),
  };
};
