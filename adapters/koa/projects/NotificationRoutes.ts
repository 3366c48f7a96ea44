/** Routes of the caller's own notifications: list (cursor), unread count, mark one or all read. */
import { Effect, Schema } from "effect";
import { NotificationView } from "../../../core/projects/model/Notification.js";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  unreadNotificationCount,
} from "../../../core/projects/NotificationQueries.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { NotificationParams, PageQuery } from "./ProjectSchemas.js";

const tags = ["projects"];

/** GET /v1/notifications — newest first, only projects the caller can still see. */
export const listNotificationsRoute = defineRoute({
  method: "GET",
  path: "/v1/notifications",
  operationId: "listNotifications",
  summary: "The caller's notifications, newest first",
  tags,
  auth: "required",
  pagination: true,
  query: PageQuery,
  responses: { 200: PageOf(NotificationView) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listNotifications(principal, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((page) => ({ status: 200, body: page })),
    ),
});

/** GET /v1/notifications/unread-count — eventually consistent with mentions. */
export const unreadCountRoute = defineRoute({
  method: "GET",
  path: "/v1/notifications/unread-count",
  operationId: "unreadNotificationCount",
  summary: "How many of the caller's notifications are unread",
  tags,
  auth: "required",
  responses: { 200: Schema.Struct({ count: Schema.Int }) },
  problems: [403],
  handler: ({ principal }) => unreadNotificationCount(principal).pipe(Effect.map((count) => ({ status: 200, body: { count } }))),
});

/** POST /v1/notifications/:id/read — idempotent; another user's notification is 404. */
export const markReadRoute = defineRoute({
  method: "POST",
  path: "/v1/notifications/:id/read",
  operationId: "markNotificationRead",
  summary: "Mark one notification read",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: NotificationParams,
  responses: { 200: NotificationView },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    markNotificationRead(principal, params.id).pipe(Effect.map((n) => ({ status: 200, body: n }))),
});

/** POST /v1/notifications/read-all — idempotent. */
export const markAllReadRoute = defineRoute({
  method: "POST",
  path: "/v1/notifications/read-all",
  operationId: "markAllNotificationsRead",
  summary: "Mark every notification of the caller read",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  responses: { 200: Schema.Struct({ updated: Schema.Int }) },
  problems: [403],
  handler: ({ principal }) => markAllNotificationsRead(principal).pipe(Effect.map((updated) => ({ status: 200, body: { updated } }))),
});

/** Notification routes. */
export const notificationRoutes = [listNotificationsRoute, unreadCountRoute, markAllReadRoute, markReadRoute];
