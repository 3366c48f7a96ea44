/**
 * Merchant webhook storage over `payment_webhook_endpoints`, `payment_webhook_deliveries`,
 * `payment_webhook_delivery_attempts` and `payment_webhook_replay_requests`. The signing
 * secret is `whsec_` plus 32 random bytes, generated here, stored as-is (it must be readable
 * to sign; see paymentsMigration0004.ts) and read only by `signingEndpoint`. A rotation moves
 * the current secret to `previous_signing_secret` with its expiry (paymentsMigration0022.ts).
 */
import { randomBytes } from "node:crypto";
import { Effect } from "effect";
import { sql } from "kysely";
import { ReplayRequest } from "../../../core/payments/model/ReplayRequest.js";
import { DeliveryAttempt, WebhookDelivery } from "../../../core/payments/model/WebhookDelivery.js";
import { WebhookEndpoint } from "../../../core/payments/model/WebhookEndpoint.js";
import type { WebhookEndpoints } from "../../../ports/payments/WebhookEndpoints.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { lockRow } from "../lockRow.js";
import { withSpan } from "../../../core/kernel/Span.js";

const endpointColumns = ["id", "merchant_id", "url", "events", "created_at", "deleted_at"] as const;

/** Builds the WebhookEndpoints port over `db`. */
export const makeSqlWebhookEndpoints = (db: SqlDatabase): WebhookEndpoints => {
  const f = featuresFor(db);
  const endpoints = rowCodec(WebhookEndpoint, f);
  const deliveries = rowCodec(WebhookDelivery, f);
  const attempts = rowCodec(DeliveryAttempt, f);
  const requests = rowCodec(ReplayRequest, f);
  // The statements of each event's fan-out and each delivery (endpoints read, delivery inserted,
  // locked, signed, updated, its attempt appended), and the other inserts, compiled once.
  const insertEndpoint = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex.insertInto("payment_webhook_endpoints").values(slotsOf([...endpoints.columns, "signing_secret"], p)),
  );
  const selectSubscribableEndpoints = compiledOnce<{ merchantId: string }>((ex, p) =>
    ex
      .selectFrom("payment_webhook_endpoints")
      .select([...endpointColumns])
      .where("merchant_id", "=", p("merchantId"))
      .where("deleted_at", "is", null)
      .orderBy("id"),
  );
  const selectEndpoint = compiledOnce<{ id: string }>((ex, p) =>
    ex.selectFrom("payment_webhook_endpoints").select([...endpointColumns]).where("id", "=", p("id")),
  );
  const selectSigningEndpoint = compiledOnce<{ id: string }>((ex, p) =>
    ex
      .selectFrom("payment_webhook_endpoints")
      .select([...endpointColumns, "signing_secret", "previous_signing_secret", "previous_secret_expires_at"])
      .where("id", "=", p("id")),
  );
  const newSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;
  const insertDeliveryIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_webhook_deliveries")
      .values(slotsOf(deliveries.columns, p))
      .onConflict((oc) => oc.columns(["endpoint_id", "event_id"]).doNothing())
      .returning("id"),
  );
  const selectDeliveryBy = (forUpdate: boolean) =>
    compiledOnce<{ id: string }>((ex, p) => lockRow(db, ex.selectFrom("payment_webhook_deliveries").selectAll().where("id", "=", p("id")), forUpdate));
  const selectDelivery = selectDeliveryBy(false);
  const selectDeliveryForUpdate = selectDeliveryBy(true);
  const updateDeliveryState = compiledOnce<{ id: string; status: string; attempts: number; lastError: unknown; updatedAt: unknown }>((ex, p) =>
    ex
      .updateTable("payment_webhook_deliveries")
      .set({ status: p("status"), attempts: p("attempts"), last_error: p("lastError"), updated_at: p("updatedAt") })
      .where("id", "=", p("id")),
  );
  const insertDeliveryAttempt = compiledInsert("payment_webhook_delivery_attempts", attempts);
  const insertOpenReplayRequest = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_webhook_replay_requests")
      .values(slotsOf(requests.columns, p))
      // The partial unique index (one open request per delivery) is the only possible conflict.
      .onConflict((oc) => oc.column("delivery_id").where("approved_by", "is", null).doNothing())
      .returning("id"),
  );
  return {
    create: (e) =>
      Effect.gen(function* () {
        const secret = newSecret();
        yield* runStatement(db, insertEndpoint, { ...endpoints.toRow({ ...e, deletedAt: null }), signing_secret: secret });
        return { secret };
      }).pipe(withSpan("WebhookEndpoints.create")),
    list: ({ merchantId, before, limit }) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("payment_webhook_endpoints").select([...endpointColumns]).where("merchant_id", "=", merchantId).where("deleted_at", "is", null);
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => endpoints.fromRow(r)))),
    find: (id) =>
      runStatement(db, selectEndpoint, { id }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : endpoints.fromRow(r))),
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
      runStatement(db, selectSubscribableEndpoints, { merchantId }).pipe(
        // The subscription filter is a short JSON list; reading it here keeps one query for both dialects.
        Effect.map(({ rows }) =>
          rows.map((r) => endpoints.fromRow(r)).filter((e) => e.events === null || (e.events as ReadonlyArray<string>).includes(eventType)),
        ),
      ),
    signingEndpoint: (id, at) =>
      runStatement(db, selectSigningEndpoint, { id }).pipe(
        Effect.map(({ rows: [r] }) => {
          if (r === undefined) return null;
          const previousLive =
            r.previous_signing_secret != null && r.previous_secret_expires_at != null && f.timeFromDb(r.previous_secret_expires_at).getTime() > at.getTime();
          return {
            endpoint: endpoints.fromRow(r),
            signingSecrets: previousLive ? [String(r.signing_secret), String(r.previous_signing_secret)] : [String(r.signing_secret)],
          };
        }),
      ),
    rotateSecret: ({ id, at, previousExpiresAt }) =>
      Effect.gen(function* () {
        // The row lock orders concurrent rotations: each moves the secret the other left current.
        const current = yield* runQuery(db, (ex) =>
          lockRow(
            db,
            ex
              .selectFrom("payment_webhook_endpoints")
              .select(["previous_secret_expires_at"])
              .where("id", "=", id)
              .where("deleted_at", "is", null),
            true,
          ).executeTakeFirst(),
        );
        if (current === undefined) return null;
        const secret = newSecret();
        // The right-hand sides read the row before the update: the current secret becomes the previous one.
        yield* runQuery(db, (ex) =>
          ex
            .updateTable("payment_webhook_endpoints")
            .set({
              signing_secret: secret,
              previous_signing_secret: previousExpiresAt === null ? null : sql.ref("signing_secret"),
              previous_secret_expires_at: previousExpiresAt === null ? null : f.timeToDb(previousExpiresAt),
            })
            .where("id", "=", id)
            .executeTakeFirst(),
        );
        const previousExpiry = current.previous_secret_expires_at;
        const droppedLivePrevious = previousExpiry != null && f.timeFromDb(previousExpiry).getTime() > at.getTime();
        return { secret, droppedLivePrevious };
      }).pipe(withSpan("WebhookEndpoints.rotateSecret")),
    insertDelivery: (d) =>
      runStatement(db, insertDeliveryIfNew, deliveries.toRow(d)).pipe(Effect.map(({ rows }) => rows.length === 1)),
    findDelivery: (id, options) =>
      runQuery(db, (ex) => (options?.forUpdate === true ? selectDeliveryForUpdate : selectDelivery)(ex, { id })).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : deliveries.fromRow(r))),
      ),
    updateDelivery: (d) =>
      runStatement(db, updateDeliveryState, { id: d.id, status: d.status, attempts: d.attempts, lastError: d.lastError, updatedAt: f.timeToDb(d.updatedAt) }).pipe(Effect.asVoid),
    appendAttempt: (a) =>
      runStatement(db, insertDeliveryAttempt, a).pipe(Effect.asVoid),
    listDeliveries: ({ endpointId, before, limit }) =>
      Effect.gen(function* () {
        const rows = yield* runQuery(db, (ex) => {
          let q = ex.selectFrom("payment_webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId);
          if (before !== undefined) q = q.where("id", "<", before);
          return q.orderBy("id", "desc").limit(limit).execute();
        });
        const found = rows.map((r) => deliveries.fromRow(r));
        if (found.length === 0) return [];
        const attemptRows = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_webhook_delivery_attempts")
            .selectAll()
            .where(
              "delivery_id",
              "in",
              found.map((d) => d.id),
            )
            .orderBy("delivery_id")
            .orderBy("number")
            .execute(),
        );
        const byDelivery = new Map<string, DeliveryAttempt[]>();
        for (const row of attemptRows) {
          const attempt = attempts.fromRow(row);
          const list = byDelivery.get(attempt.deliveryId) ?? [];
          list.push(attempt);
          byDelivery.set(attempt.deliveryId, list);
        }
        return found.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
      }).pipe(withSpan("WebhookEndpoints.listDeliveries")),
    listDeadDeliveries: ({ before, limit }) =>
      runQuery(db, (ex) => {
        // Served by the partial index on dead deliveries (migration 5): the seek starts at `before`.
        // The status is a literal, the index's own predicate: bound as a value, neither SQLite nor
        // a generic plan on Postgres could use the index and every delivery was read.
        let q = ex.selectFrom("payment_webhook_deliveries").selectAll().where("status", "=", sql.lit("dead"));
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => deliveries.fromRow(r))),
        withSpan("WebhookEndpoints.listDeadDeliveries"),
      ),
    insertReplayRequest: (r) =>
      runStatement(db, insertOpenReplayRequest, requests.toRow({ ...r, approvedBy: null, approvalReason: null, approvedAt: null })).pipe(
        Effect.map(({ rows }) => rows.length === 1),
      ),
    findReplayRequest: (id, options) =>
      runQuery(db, (ex) =>
        lockRow(db, ex.selectFrom("payment_webhook_replay_requests").selectAll().where("id", "=", id), options?.forUpdate).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : requests.fromRow(r)))),
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
