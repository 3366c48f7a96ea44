/**
 * The dependency checks behind GET /readyz: the database (a `select 1`), the object store (a
 * `stat` of a key that does not exist, and on S3 its bucket's HeadBucket), the realtime bus (a notice published and heard back,
 * which on Postgres proves the LISTEN connection) and the worker (no due job or undelivered
 * outbox event older than `stallSeconds`: a worker that keeps up is alive, wherever it runs).
 * Database and object store are required (503 while down); the bus and the worker are
 * reported but do not take the server out of rotation, since HTTP still works without them.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import { sql } from "kysely";
import type { DependencyCheck } from "../koa/Health.js";
import { featuresFor } from "../sql/featuresFor.js";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";
import type { RealtimeBus } from "../../ports/Realtime.js";

/** The database answers a trivial query. */
export const databaseCheck = (database: SqlDatabase): DependencyCheck => ({
  name: "database",
  required: true,
  check: async () => {
    await sql`select 1`.execute(database.db);
  },
});

/**
 * The object store answers a metadata request (for a key that is never written); a store that can
 * tell whether its bucket exists (the S3 adapter's `bucketExists`) must not answer that it does not:
 * the key's 404 reads the same for a bucket deleted after start.
 */
export const objectStoreCheck = (store: ObjectStore & { readonly bucketExists?: () => Promise<boolean | null> }): DependencyCheck => ({
  name: "object_store",
  required: true,
  check: async () => {
    await Effect.runPromise(store.stat("domainkit-readiness-probe"));
    if ((await store.bucketExists?.()) === false) throw new Error("the object store's bucket does not exist");
  },
});

/**
 * The realtime bus delivers: a probe notice on a channel nobody subscribes to must come back to
 * this process's own listener. `close` stops listening.
 */
export const realtimeBusCheck = (bus: RealtimeBus, options: { readonly required?: boolean } = {}): DependencyCheck & { readonly close: () => void } => {
  const waiting = new Map<string, () => void>();
  let unlisten: Promise<() => void> | undefined;
  const listening = (): Promise<() => void> =>
    (unlisten ??= Effect.runPromise(
      bus.listen((notice) => {
        if (notice.type === "message") waiting.get(notice.channel)?.();
      }),
    ));
  return {
    name: "realtime_bus",
    required: options.required ?? false,
    check: async () => {
      await listening();
      const channel = `domainkit-readyz:${randomUUID()}`;
      const heard = new Promise<void>((resolve) => waiting.set(channel, resolve));
      try {
        await Effect.runPromise(bus.publish({ type: "message", channel, offset: 0 }));
        await heard;
      } finally {
        waiting.delete(channel);
      }
    },
    close: () => {
      void unlisten?.then((stop) => stop()).catch(() => undefined);
    },
  };
};

/** The worker keeps up: no due job and no undelivered outbox event older than `stallSeconds`. */
export const workerCheck = (database: SqlDatabase, options: { readonly stallSeconds?: number; readonly required?: boolean } = {}): DependencyCheck => ({
  name: "worker",
  required: options.required ?? false,
  check: async () => {
    const f = featuresFor(database);
    const stalled = f.timeToDb(new Date(Date.now() - (options.stallSeconds ?? 120) * 1000));
    const [job, event] = await Promise.all([
      database.db.selectFrom("jobs").select("id").where("status", "=", "pending").where("run_at", "<", stalled).limit(1).executeTakeFirst(),
      // A literal: outbox_due is partial on it on Postgres, whose cached generic plan would
      // otherwise read the whole outbox on every probe.
      database.db.selectFrom("outbox").select("id").where("status", "=", sql.lit("pending")).where("next_attempt_at", "<", stalled).limit(1).executeTakeFirst(),
    ]);
    if (job !== undefined || event !== undefined) throw new Error("the worker is not keeping up (a due job or an undelivered event is older than the stall limit)");
  },
});
