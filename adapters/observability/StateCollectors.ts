/**
 * State metrics read when Prometheus scrapes, straight from the tables the worker already
 * keeps (no counters inside the relay or the job runner): outbox backlog, dead events and the
 * age of the oldest undelivered one (relay lag); jobs due, scheduled, running and dead; and,
 * when the payments module is mounted, merchant webhook deliveries by outcome, provider calls
 * with an unknown outcome (timeouts) and open reconciliation exceptions; likewise the file
 * storage (unpublished versions, open uploads), e-commerce (orders waiting on a payment outcome
 * or a cancellation) and food delivery (deliveries without a courier) gauges. Also the Postgres pool
 * and the websocket counts, from the objects that hold them.
 *
 * Every query reads only the rows it counts, through an index on their status (outbox_pending_seq,
 * jobs_due_order, the partial indexes of payments migration 10, ...), and states a status as a
 * literal where the index is partial on it; none counts a table that only grows (so merchant
 * webhook deliveries are counted while pending or dead, not once they succeeded). Queries run
 * outside any transaction; a failed read leaves that source out of the scrape and counts a
 * scrape error.
 */
import { sql, type Kysely } from "kysely";
import { featuresFor } from "../sql/featuresFor.js";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import { postgresPool } from "../postgres/openPostgres.js";
import type { GaugeReading } from "./Metrics.js";

const n = (value: unknown): number => (typeof value === "number" ? value : Number(value ?? 0));

/** What to read: the database, and which modules' tables exist there. */
export interface DatabaseStateOptions {
  readonly payments: boolean;
  readonly files?: boolean;
  readonly commerce?: boolean;
  readonly delivery?: boolean;
  /** The clock (tests). */
  readonly now?: () => Date;
}

/** The outbox and job gauges (and the payments ones) of `database`. */
export const databaseState =
  (database: SqlDatabase, options: DatabaseStateOptions) =>
  async (): Promise<ReadonlyArray<GaugeReading>> => {
    const f = featuresFor(database);
    const db: Kysely<any> = database.db;
    const now = options.now?.() ?? new Date();
    const nowDb = f.timeToDb(now);
    const [outbox, jobs] = await Promise.all([
      db
        .selectFrom("outbox")
        .select(["status", (eb) => eb.fn.countAll().as("count"), (eb) => eb.fn.min("created_at").as("oldest")])
        .where("status", "in", [sql.lit("pending"), sql.lit("dead")])
        .groupBy("status")
        .execute(),
      db
        .selectFrom("jobs")
        .select((eb) => [
          eb.fn.countAll().filterWhere(eb.and([eb("status", "=", "pending"), eb("run_at", "<=", nowDb)])).as("due"),
          eb.fn.countAll().filterWhere(eb.and([eb("status", "=", "pending"), eb("run_at", ">", nowDb)])).as("scheduled"),
          eb.fn.countAll().filterWhere("status", "=", "running").as("running"),
          eb.fn.countAll().filterWhere("status", "=", "dead").as("dead"),
        ])
        .where("status", "in", ["pending", "running", "dead"])
        .executeTakeFirst(),
    ]);
    const pending = outbox.find((row) => row.status === "pending");
    const dead = outbox.find((row) => row.status === "dead");
    const oldest = pending?.oldest === null || pending?.oldest === undefined ? undefined : f.timeFromDb(pending.oldest);
    const readings: GaugeReading[] = [
      { metric: "domainkit_outbox_backlog", value: n(pending?.count) },
      { metric: "domainkit_outbox_dead", value: n(dead?.count) },
      { metric: "domainkit_outbox_oldest_pending_age_seconds", value: oldest === undefined ? 0 : Math.max(0, (now.getTime() - oldest.getTime()) / 1000) },
      ...(["due", "scheduled", "running", "dead"] as const).map((state) => ({
        metric: "domainkit_jobs" as const,
        labels: { state },
        value: n(jobs?.[state]),
      })),
    ];
    if (options.payments) {
      // One count per partial index: `status = 'x'` with the literal is the index's predicate.
      const count = (table: string, status: string) =>
        db.selectFrom(table).select((eb) => eb.fn.countAll().as("count")).where("status", "=", sql.lit(status)).executeTakeFirst();
      const [pendingDeliveries, deadDeliveries, unknown, open] = await Promise.all([
        count("payment_webhook_deliveries", "pending"),
        count("payment_webhook_deliveries", "dead"),
        count("payment_attempts", "unknown"),
        count("payment_reconciliation_exceptions", "open"),
      ]);
      readings.push({ metric: "domainkit_webhook_deliveries", labels: { outcome: "pending" }, value: n(pendingDeliveries?.count) });
      readings.push({ metric: "domainkit_webhook_deliveries", labels: { outcome: "dead" }, value: n(deadDeliveries?.count) });
      readings.push({ metric: "domainkit_payments_provider_timeouts", value: n(unknown?.count) });
      readings.push({ metric: "domainkit_payments_reconciliation_exceptions_open", value: n(open?.count) });
    }
    if (options.files === true) {
      const [versions, uploads] = await Promise.all([
        db
          .selectFrom("fs_file_versions")
          .select(["status", (eb) => eb.fn.countAll().as("count")])
          .where("status", "in", ["quarantined", "scan_failed", "blocked"])
          .groupBy("status")
          .execute(),
        db.selectFrom("fs_upload_sessions").select((eb) => eb.fn.countAll().as("count")).where("status", "=", sql.lit("open")).executeTakeFirst(),
      ]);
      for (const status of ["quarantined", "scan_failed", "blocked"]) {
        readings.push({ metric: "domainkit_files_versions_unpublished", labels: { status }, value: n(versions.find((v) => v.status === status)?.count) });
      }
      readings.push({ metric: "domainkit_files_uploads_open", value: n(uploads?.count) });
    }
    if (options.commerce === true) {
      const orders = await db
        .selectFrom("shop_orders")
        .select(["status", (eb) => eb.fn.countAll().as("count")])
        .where("status", "in", ["payment_pending", "cancellation_requested"])
        .groupBy("status")
        .execute();
      for (const status of ["payment_pending", "cancellation_requested"]) {
        readings.push({ metric: "domainkit_commerce_orders", labels: { status }, value: n(orders.find((o) => o.status === status)?.count) });
      }
    }
    if (options.delivery === true) {
      const unassigned = await db.selectFrom("dl_deliveries").select((eb) => eb.fn.countAll().as("count")).where("status", "=", "pending").executeTakeFirst();
      readings.push({ metric: "domainkit_delivery_deliveries_unassigned", value: n(unassigned?.count) });
    }
    return readings;
  };

/** The Postgres pool's connections (none for SQLite, whose one connection is not pooled). */
export const poolState = (database: SqlDatabase) => (): ReadonlyArray<GaugeReading> => {
  const pool = postgresPool(database);
  if (pool === undefined) return [];
  return [
    { metric: "domainkit_db_pool_connections", labels: { state: "total" }, value: pool.totalCount },
    { metric: "domainkit_db_pool_connections", labels: { state: "idle" }, value: pool.idleCount },
    { metric: "domainkit_db_pool_connections", labels: { state: "waiting" }, value: pool.waitingCount },
  ];
};

/** The realtime endpoint's counts (RealtimeHandle). */
export const realtimeState =
  (realtime: { readonly connectionCount: () => number; readonly subscriptionCount?: () => number }) =>
  (): ReadonlyArray<GaugeReading> => [
    { metric: "domainkit_websocket_connections", value: realtime.connectionCount() },
    ...(realtime.subscriptionCount ? [{ metric: "domainkit_websocket_subscriptions" as const, value: realtime.subscriptionCount() }] : []),
  ];
