/**
 * The NotificationsRepository port over `pm_notifications`; UNIQUE (recipient_id, event_id)
 * dedupes redelivery. Reads show mentions of visible projects and invitations' notifications
 * while the invitation is pending and unexpired.
 */
import { Effect } from "effect";
import { Notification } from "../../../core/projects/model/Notification.js";
import type { NotificationsRepository } from "../../../ports/projects/NotificationsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { sql, type RawBuilder } from "kysely";
import type { ProjectScope } from "../../../ports/projects/ProjectScope.js";
import { isEmptyScope, projectScopeSql } from "./ProjectScopeSql.js";

/** Builds the notification repository over `db`. */
export const makeSqlNotificationsRepository = (db: SqlDatabase): NotificationsRepository => {
  const f = featuresFor(db);
  const notifications = rowCodec(Notification, f);
  /**
   * Which of the recipient's notifications show: a mention of a project in the scope (as
   * before), or an invitation's while it is pending and unexpired at `at`, one key probe each.
   */
  const openInvitation = (at: Date): RawBuilder<boolean> =>
    sql<boolean>`(pm_notifications.kind = 'workspace_invitation' AND EXISTS (SELECT 1 FROM pm_workspace_invitations wi
      WHERE wi.id = pm_notifications.invitation_id AND wi.user_id = pm_notifications.recipient_id
        AND wi.status = 'pending' AND wi.expires_at > ${f.timeToDb(at)}))`;
  const visible = (scope: ProjectScope, at: Date): RawBuilder<boolean> => {
    const invitation = openInvitation(at);
    if (isEmptyScope(scope)) return invitation;
    return sql<boolean>`((pm_notifications.kind = 'mention' AND ${projectScopeSql("pm_notifications", scope)}) OR ${invitation})`;
  };
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
    list: ({ recipientId, scope, at, beforeId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex
          .selectFrom("pm_notifications")
          .selectAll()
          .where("recipient_id", "=", recipientId)
          .where(visible(scope, at));
        if (beforeId !== undefined) query = query.where("id", "<", beforeId);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => notifications.fromRow(r))),
        withSpan("NotificationsRepository.list"),
      ),
    unreadCount: (recipientId, scope, at) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_notifications")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("recipient_id", "=", recipientId)
          .where("read_at", "is", null)
          .where(visible(scope, at))
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
          .where(sql<boolean>`(pm_notifications.kind = 'mention' OR ${openInvitation(at)})`)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows))),
  };
};
