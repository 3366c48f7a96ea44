/** The NotificationsRepository port over `pm_notifications`; UNIQUE (recipient_id, event_id) dedupes redelivery. */
import { Effect } from "effect";
import type { Notification } from "../../../core/projects/Notification.js";
import type { NotificationsRepository } from "../../../ports/projects/NotificationsRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const fromRow = (f: DialectFeatures, r: any): Notification => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  recipientId: String(r.recipient_id),
  eventId: String(r.event_id),
  kind: r.kind,
  data: f.jsonFromDb(r.data) as Notification["data"],
  readAt: r.read_at === null || r.read_at === undefined ? null : f.timeFromDb(r.read_at),
  createdAt: f.timeFromDb(r.created_at),
});

/** Builds the notification repository over `db`. */
export const makeSqlNotificationsRepository = (db: SqlDatabase): NotificationsRepository => {
  const f = featuresFor(db);
  return {
    insert: (n) =>
      // DO NOTHING keeps a Postgres transaction usable when the event was already handled.
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_notifications")
          .values({
            id: n.id,
            workspace_id: n.workspaceId,
            project_id: n.projectId,
            recipient_id: n.recipientId,
            event_id: n.eventId,
            kind: n.kind,
            data: f.jsonToDb(n.data),
            read_at: n.readAt === null ? null : f.timeToDb(n.readAt),
            created_at: f.timeToDb(n.createdAt),
          })
          .onConflict((oc) => oc.columns(["recipient_id", "event_id"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => r !== undefined),
        Effect.withSpan("NotificationsRepository.insert"),
      ),
    find: (recipientId, id) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_notifications").selectAll().where("id", "=", id).where("recipient_id", "=", recipientId).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : fromRow(f, r)))),
    findById: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_notifications").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : fromRow(f, r))),
      ),
    list: ({ recipientId, projectIds, beforeId, limit }) =>
      projectIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => {
            let query = ex
              .selectFrom("pm_notifications")
              .selectAll()
              .where("recipient_id", "=", recipientId)
              .where("project_id", "in", [...projectIds]);
            if (beforeId !== undefined) query = query.where("id", "<", beforeId);
            return query.orderBy("id", "desc").limit(limit).execute();
          }).pipe(
            Effect.map((rows) => rows.map((r) => fromRow(f, r))),
            Effect.withSpan("NotificationsRepository.list"),
          ),
    unreadCount: (recipientId, projectIds) =>
      projectIds.length === 0
        ? Effect.succeed(0)
        : runQuery(db, (ex) =>
            ex
              .selectFrom("pm_notifications")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("recipient_id", "=", recipientId)
              .where("read_at", "is", null)
              .where("project_id", "in", [...projectIds])
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
