/**
 * Storage of outgoing merchant webhooks: endpoints (with their signing secret, generated here
 * and returned once), deliveries (UNIQUE per endpoint and event), their append-only attempts and
 * the dual-control replay requests. Every call joins the open transaction.
 */
import { Context, Effect } from "effect";
import type { DeliveryAttempt, DeliveryWithAttempts, WebhookDelivery } from "../../core/payments/model/WebhookDelivery.js";
import type { ReplayRequest } from "../../core/payments/model/ReplayRequest.js";
import type { WebhookEndpoint } from "../../core/payments/model/WebhookEndpoint.js";
import type { LockOptions } from "./PaymentsRepository.js";

/**
 * An endpoint together with the secrets deliveries are signed with (for the sender only): the
 * current one first, then the previous one while its rotation overlap lasts.
 */
export interface SigningEndpoint {
  readonly endpoint: WebhookEndpoint;
  readonly signingSecrets: ReadonlyArray<string>;
}

/** What a rotation did: the new secret (answered once) and whether a still-live previous secret was dropped. */
export interface RotatedSecret {
  readonly secret: string;
  readonly droppedLivePrevious: boolean;
}

/** The merchant webhook repository. */
export interface WebhookEndpoints {
  /** Stores `endpoint` with a fresh random signing secret and answers that secret (the only time it leaves storage except to sign). */
  readonly create: (endpoint: WebhookEndpoint) => Effect.Effect<{ readonly secret: string }>;
  /** A merchant's live endpoints, newest first, strictly before the endpoint id `before`, at most `limit`. */
  readonly list: (req: { readonly merchantId: string; readonly before?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>;
  /** Any endpoint by id (deleted ones too); the core checks ownership. */
  readonly find: (id: string) => Effect.Effect<WebhookEndpoint | null>;
  /** Marks a live endpoint deleted; false when it was not live. */
  readonly markDeleted: (id: string, at: Date) => Effect.Effect<boolean>;
  /** The live endpoints of `merchantId` subscribed to `eventType`. */
  readonly subscribed: (merchantId: string, eventType: string) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>;
  /** The endpoint and its secrets live at `at` (the previous one while `at` is before its expiry), for signing one delivery. */
  readonly signingEndpoint: (id: string, at: Date) => Effect.Effect<SigningEndpoint | null>;
  /**
   * Gives a live endpoint a fresh random signing secret and answers it (the only time it leaves
   * storage except to sign). The current secret becomes the previous one until
   * `previousExpiresAt`, replacing any previous one (at most two secrets); null keeps no previous
   * secret. Null when the endpoint is not live. `at` tells whether a replaced previous secret was
   * still live.
   */
  readonly rotateSecret: (req: { readonly id: string; readonly at: Date; readonly previousExpiresAt: Date | null }) => Effect.Effect<RotatedSecret | null>;
  /** Inserts a delivery unless one exists for its (endpoint, event); true when inserted. */
  readonly insertDelivery: (delivery: WebhookDelivery) => Effect.Effect<boolean>;
  readonly findDelivery: (id: string, options?: LockOptions) => Effect.Effect<WebhookDelivery | null>;
  /** Writes status, attempts, last error and updated time of a delivery. */
  readonly updateDelivery: (delivery: WebhookDelivery) => Effect.Effect<void>;
  /** Appends one attempt (append-only). */
  readonly appendAttempt: (attempt: DeliveryAttempt) => Effect.Effect<void>;
  /** Deliveries of an endpoint, newest first, strictly before the delivery id `before`, with their attempts. */
  readonly listDeliveries: (req: {
    readonly endpointId: string;
    readonly before?: string;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<DeliveryWithAttempts>>;
  /**
   * Dead-lettered deliveries of every merchant (the operators' queue), newest first by id,
   * strictly before the delivery id `before` when given.
   */
  readonly listDeadDeliveries: (req: { readonly before?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<WebhookDelivery>>;
  /** Inserts a replay request; false when the delivery already has an open (unapproved) one. */
  readonly insertReplayRequest: (request: ReplayRequest) => Effect.Effect<boolean>;
  readonly findReplayRequest: (id: string, options?: LockOptions) => Effect.Effect<ReplayRequest | null>;
  /**
   * Approves an open request by `approvedBy`; false when it is no longer open or `approvedBy`
   * is its requester (the database refuses that too).
   */
  readonly approveReplayRequest: (req: {
    readonly id: string;
    readonly approvedBy: string;
    readonly reason: string;
    readonly at: Date;
  }) => Effect.Effect<boolean>;
}
export const WebhookEndpoints = Context.GenericTag<WebhookEndpoints>("domainkit/payments/WebhookEndpoints");
