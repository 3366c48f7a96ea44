/**
 * Merchant webhook storage over `payment_webhook_endpoints`, `payment_webhook_deliveries`,
 * `payment_webhook_delivery_attempts` and `payment_webhook_replay_requests`. The signing
 * secret is `whsec_` plus 32 random bytes, generated here, stored as-is (it must be readable
 * to sign; see paymentsMigration0004.ts) and read only by `signingEndpoint`.
 */
import { randomBytes } from "node:crypto";
import { Effect } from "effect";
import type {
  DeliveryAttempt,
  DeliveryStatus,
  MerchantWebhookEventType,
  ReplayRequest,
  WebhookDelivery,
  WebhookEndpoint,
} from "../../../core/payments/WebhookEndpointRecords.js";
import type { WebhookEndpoints } from "../../../ports/payments/WebhookEndpoints.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { lockRow } from "./lockRow.js";

type Row = Record<string, unknown>;
const nullable = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const endpointColumns = ["id", "merchant_id", "url", "events", "created_at", "deleted_at"] as const;

const endpointFromRow = (f: DialectFeatures, r: Row): WebhookEndpoint => ({
  id: String(r.id),
  merchantId: String(r.merchant_id),
  url: String(r.url),
  events: r.events === null || r.events === undefined ? null : (f.jsonFromDb(r.events) as MerchantWebhookEventType[]),
  createdAt: f.timeFromDb(r.created_at),
  deletedAt: r.deleted_at === null || r.deleted_at === undefined ? null : f.timeFromDb(r.deleted_at),
});

const deliveryFromRow = (f: DialectFeatures, r: Row): WebhookDelivery => ({
  id: String(r.id),
  endpointId: String(r.endpoint_id),
  merchantId: String(r.merchant_id),
  eventId: String(r.event_id),
  eventType: String(r.event_type),
  body: String(r.body),
  status: String(r.status) as DeliveryStatus,
  attempts: toNumber(r.attempts),
  lastError: nullable(r.last_error),
  createdAt: f.timeFromDb(r.created_at),
  updatedAt: f.timeFromDb(r.updated_at),
});

const attemptFromRow = (f: DialectFeatures, r: Row): DeliveryAttempt => ({
  id: String(r.id),
  deliveryId: String(r.delivery_id),
  number: toNumber(r.number),
  statusCode: r.status_code === null || r.status_code === undefined ? null : toNumber(r.status_code),
  error: nullable(r.error),
  attemptedAt: f.timeFromDb(r.attempted_at),
});

const requestFromRow = (f: DialectFeatures, r: Row): ReplayRequest => ({
  id: String(r.id),
  deliveryId: String(r.delivery_id),
  requestedBy: String(r.requested_by),
  reason: String(r.reason),
  requestedAt: f.timeFromDb(r.requested_at),
  approvedBy: nullable(r.approved_by),
  approvalReason: nullable(r.approval_reason),
  approvedAt: r.approved_at === null || r.approved_at === undefined ? null : f.timeFromDb(r.approved_at),
});

/** Builds the WebhookEndpoints port over `db`. */
export const makeSqlWebhookEndpoints = (db: SqlDatabase): WebhookEndpoints => {
  const f = featuresFor(db);
  return {
    create: (e) =>
      Effect.gen(function* () {
        const secret = `whsec_${randomBytes(32).toString("base64url")}`;
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("payment_webhook_endpoints")
            .values({
              id: e.id,
              merchant_id: e.merchantId,
              url: e.url,
              events: e.events === null ? null : f.jsonToDb(e.events),
              signing_secret: secret,
              created_at: f.timeToDb(e.createdAt),
              deleted_at: null,
            })
            .execute(),
        );
        return { secret };
      }).pipe(Effect.withSpan("WebhookEndpoints.create")),
    list: (merchantId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_webhook_endpoints")
          .select([...endpointColumns])
          .where("merchant_id", "=", merchantId)
          .where("deleted_at", "is", null)
          .orderBy("id", "desc")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => endpointFromRow(f, r)))),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("payment_webhook_endpoints").select([...endpointColumns]).where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : endpointFromRow(f, r))),
      ),
    markDeleted: (id, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_webhook_endpoints")
          .set({ deleted_at: f.timeToDb(at) })
          .where("id", "=", id)
          .where("deleted_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
    subscribed: (merchantId, eventType) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_webhook_endpoints")
          .select([...endpointColumns])
          .where("merchant_id", "=", merchantId)
          .where("deleted_at", "is", null)
          .orderBy("id")
          .execute(),
      ).pipe(
        // The subscription filter is a short JSON list; reading it here keeps one query for both dialects.
        Effect.map((rows) =>
          rows.map((r) => endpointFromRow(f, r)).filter((e) => e.events === null || (e.events as ReadonlyArray<string>).includes(eventType)),
        ),
      ),
    signingEndpoint: (id) =>
      runQuery(db, (ex) =>
        ex.selectFrom("payment_webhook_endpoints").select([...endpointColumns, "signing_secret"]).where("id", "=", id).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : { endpoint: endpointFromRow(f, r), signingSecret: String(r.signing_secret) }))),
    insertDelivery: (d) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_webhook_deliveries")
          .values({
            id: d.id,
            endpoint_id: d.endpointId,
            merchant_id: d.merchantId,
            event_id: d.eventId,
            event_type: d.eventType,
            body: d.body,
            status: d.status,
            attempts: d.attempts,
            last_error: d.lastError,
            created_at: f.timeToDb(d.createdAt),
            updated_at: f.timeToDb(d.updatedAt),
          })
          .onConflict((oc) => oc.columns(["endpoint_id", "event_id"]).doNothing())
          .returning("id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.length === 1)),
    findDelivery: (id, options) =>
      runQuery(db, (ex) =>
        lockRow(db, ex.selectFrom("payment_webhook_deliveries").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : deliveryFromRow(f, r)))),
    updateDelivery: (d) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_webhook_deliveries")
          .set({ status: d.status, attempts: d.attempts, last_error: d.lastError, updated_at: f.timeToDb(d.updatedAt) })
          .where("id", "=", d.id)
          .execute(),
      ).pipe(Effect.asVoid),
    appendAttempt: (a) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_webhook_delivery_attempts")
          .values({
            id: a.id,
            delivery_id: a.deliveryId,
            number: a.number,
            status_code: a.statusCode,
            error: a.error,
            attempted_at: f.timeToDb(a.attemptedAt),
          })
          .execute(),
      ).pipe(Effect.asVoid),
    listDeliveries: ({ endpointId, before, limit }) =>
      Effect.gen(function* () {
        const rows = yield* runQuery(db, (ex) => {
          let q = ex.selectFrom("payment_webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId);
          if (before !== undefined) q = q.where("id", "<", before);
          return q.orderBy("id", "desc").limit(limit).execute();
        });
        const deliveries = rows.map((r) => deliveryFromRow(f, r));
        if (deliveries.length === 0) return [];
        const attempts = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_webhook_delivery_attempts")
            .selectAll()
            .where(
              "delivery_id",
              "in",
              deliveries.map((d) => d.id),
            )
            .orderBy("delivery_id")
            .orderBy("number")
            .execute(),
        );
        const byDelivery = new Map<string, DeliveryAttempt[]>();
        for (const row of attempts) {
          const attempt = attemptFromRow(f, row);
          const list = byDelivery.get(attempt.deliveryId) ?? [];
          list.push(attempt);
          byDelivery.set(attempt.deliveryId, list);
        }
        return deliveries.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
      }).pipe(Effect.withSpan("WebhookEndpoints.listDeliveries")),
    listDeadDeliveries: ({ before, limit }) =>
      runQuery(db, (ex) => {
        // Served by the partial index on dead deliveries (migration 5): the seek starts at `before`.
        let q = ex.selectFrom("payment_webhook_deliveries").selectAll().where("status", "=", "dead");
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => deliveryFromRow(f, r))),
        Effect.withSpan("WebhookEndpoints.listDeadDeliveries"),
      ),
    insertReplayRequest: (r) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_webhook_replay_requests")
          .values({
            id: r.id,
            delivery_id: r.deliveryId,
            requested_by: r.requestedBy,
            reason: r.reason,
            requested_at: f.timeToDb(r.requestedAt),
            approved_by: null,
            approval_reason: null,
            approved_at: null,
          })
          // The partial unique index (one open request per delivery) is the only possible conflict.
          .onConflict((oc) => oc.column("delivery_id").where("approved_by", "is", null).doNothing())
          .returning("id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.length === 1)),
    findReplayRequest: (id, options) =>
      runQuery(db, (ex) =>
        lockRow(db, ex.selectFrom("payment_webhook_replay_requests").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : requestFromRow(f, r)))),
    approveReplayRequest: ({ id, approvedBy, reason, at }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_webhook_replay_requests")
          .set({ approved_by: approvedBy, approval_reason: reason, approved_at: f.timeToDb(at) })
          .where("id", "=", id)
          .where("approved_by", "is", null)
          .where("requested_by", "<>", approvedBy)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
  };
};
