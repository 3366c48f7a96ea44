/** The NotificationsRepository port over `pm_notifications`; UNIQUE (recipient_id, event_id) dedupes redelivery. */
import { Effect } from "effect";
import { Notification } from "../../../core/projects/model/Notification.js";
import type { NotificationsRepository } from "../../../ports/projects/NotificationsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { isEmptyScope, projectScopeSql } from "./ProjectScopeSql.js";

/** Builds the notification repository over `db`. */
export const makeSqlNotificationsRepository = (db: SqlDatabase): NotificationsRepository => {
  const f = featuresFor(db);
  const notifications = rowCodec(Notification, f);
  return {
    insert: (n) =>
      // DO NOTHING keeps a Postgres transaction usable when the event was already handled.
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_notifications")
          .values(notifications.toRow(n))
          .onConflict((oc) => oc.columns(["recipient_id", "event_id"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => r !== undefined),
        withSpan("NotificationsRepository.insert"),
      ),
    find: (recipientId, id) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_notifications").selectAll().where("id", "=", id).where("recipient_id", "=", recipientId).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : notifications.fromRow(r)))),
    findById: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_notifications").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : notifications.fromRow(r))),
      ),
    list: ({ recipientId, scope, beforeId, limit }) =>
      isEmptyScope(scope)
        ? Effect.succeed([])
        : runQuery(db, (ex) => {
            let query = ex
              .selectFrom("pm_notifications")
              .selectAll()
              .where("recipient_id", "=", recipientId)
              .where(projectScopeSql("pm_notifications", scope));
            if (beforeId !== undefined) query = query.where("id", "<", beforeId);
            return query.orderBy("id", "desc").limit(limit).execute();
          }).pipe(
            Effect.map((rows) => rows.map((r) => notifications.fromRow(r))),
            withSpan("NotificationsRepository.list"),
          ),
    unreadCount: (recipientId, scope) =>
      isEmptyScope(scope)
        ? Effect.succeed(0)
        : runQuery(db, (ex) =>
            ex
              .selectFrom("pm_notifications")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("recipient_id", "=", recipientId)
              .where("read_at", "is", null)
              .where(projectScopeSql("pm_notifications", scope))
              .executeTakeFirstOrThrow(),
          ).pipe(Effect.map((r) => toNumber(r.n))),
    markRead: (recipientId, id, at) =>
      runQuery(db, async (ex) => {
        await ex
          .updateTable("pm_notifications")
          .set({ read_at: f.timeToDb(at) })
          .where("id", "=", id)
          .where("recipient_id", "=", recipientId)
          .where("read_at", "is", null)
          .execute();
        return ex.selectFrom("pm_notifications").select("id").where("id", "=", id).where("recipient_id", "=", recipientId).executeTakeFirst();
      }).pipe(Effect.map((r) => r !== undefined)),
    markAllRead: (recipientId, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_notifications")
          .set({ read_at: f.timeToDb(at) })
          .where("recipient_id", "=", recipientId)
          .where("read_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows))),
  };
};
