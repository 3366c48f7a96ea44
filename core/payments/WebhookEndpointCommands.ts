/**
 * Merchant webhook endpoints over the API: register (the signing secret is answered once),
 * list, delete, rotate the signing secret with overlap (the new secret is answered once), and
 * list an endpoint's deliveries with their attempts. Scope `webhooks:write`; another merchant's
 * endpoint answers 404 like an unknown one.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { NotFound, ValidationFailed, type Forbidden, type InvalidCursor } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { requireMerchantScope, webhooksWriteScope } from "./ApiKeyManagement.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { actorOf, ownedBy } from "./MerchantAccess.js";
import { merchantWebhookEventTypes, type MerchantWebhookEventType, type WebhookEndpoint } from "./model/WebhookEndpoint.js";
import { type DeliveryWithAttempts } from "./model/WebhookDelivery.js";
import { withSpan } from "../kernel/Span.js";
import { WebhookEndpointId } from "./model/Ids.js";
import { webhookUrlRefusal } from "./WebhookTarget.js";
import { WebhookTargetSettings } from "../../ports/payments/WebhookTargetSettings.js";

/** Checks an endpoint URL against the host's webhook target settings (WebhookTarget.ts) and answers it normalized. */
const checkUrl = (raw: string): Effect.Effect<string, ValidationFailed, WebhookTargetSettings> =>
  Effect.gen(function* () {
    const invalid = (message: string) => Effect.fail(new ValidationFailed({ errors: [{ path: "url", message }] }));
    if (raw.length > 2048) return yield* invalid("must be at most 2048 characters");
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return yield* invalid("must be an absolute URL");
    }
    const refusal = webhookUrlRefusal(url, (yield* WebhookTargetSettings).allowLoopbackHttp);
    return refusal === null ? url.toString() : yield* invalid(refusal);
  });

const checkEvents = (events: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<MerchantWebhookEventType> | null, ValidationFailed> => {
  if (events === undefined) return Effect.succeed(null);
  const unknown = events.filter((e) => !(merchantWebhookEventTypes as ReadonlyArray<string>).includes(e));
  if (events.length === 0 || unknown.length > 0) {
    return Effect.fail(
      new ValidationFailed({ errors: [{ path: "events", message: `must name one or more of ${merchantWebhookEventTypes.join(", ")}` }] }),
    );
  }
  return Effect.succeed([...new Set(events)] as MerchantWebhookEventType[]);
};

/** Registers an endpoint of the caller's merchant and answers it with its signing secret (shown once). */
export const createWebhookEndpoint = (
  principal: Principal,
  input: { readonly url: string; readonly events?: ReadonlyArray<string> },
): Effect.Effect<
  { readonly endpoint: WebhookEndpoint; readonly secret: string },
  Forbidden | ValidationFailed,
  WebhookEndpoints | WebhookTargetSettings | PaymentsRepository | Transactions | Ids
> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, webhooksWriteScope);
    const url = yield* checkUrl(input.url);
    const events = yield* checkEvents(input.events);
    const endpoint: WebhookEndpoint = { id: WebhookEndpointId.make(yield* (yield* Ids).next), merchantId: caller.merchantId, url, events, createdAt: yield* now, deletedAt: null };
    const store = yield* WebhookEndpoints;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const { secret } = yield* store.create(endpoint);
        yield* audit({
          merchantId: caller.merchantId,
          actor: actorOf(caller),
          action: "webhook_endpoint.created",
          subjectType: "webhook_endpoint",
          subjectId: endpoint.id,
          reason: "merchant request",
          data: { url, events },
        });
        return { endpoint, secret };
      }),
    );
  }).pipe(withSpan("Payments.createWebhookEndpoint"));

/** The caller's live endpoints (never a secret), newest first, as keyset pages. */
export const listWebhookEndpoints = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<WebhookEndpoint>, Forbidden | InvalidCursor, WebhookEndpoints> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, webhooksWriteScope);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* WebhookEndpoints).list({ merchantId: caller.merchantId, ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listWebhookEndpoints"));

const ownedEndpoint = (principal: Principal, endpointId: string) =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, webhooksWriteScope);
    const found = yield* (yield* WebhookEndpoints).find(endpointId);
    const endpoint = yield* ownedBy(caller, "webhook_endpoint", found);
    return { caller, endpoint };
  });

/** Deletes one of the caller's endpoints: no new deliveries go to it; pending ones stop. */
export const deleteWebhookEndpoint = (
  principal: Principal,
  endpointId: WebhookEndpointId,
): Effect.Effect<void, Forbidden | NotFound, WebhookEndpoints | PaymentsRepository | Transactions | Ids> =>
  Effect.gen(function* () {
    const store = yield* WebhookEndpoints;
    const at = yield* now;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const { caller } = yield* ownedEndpoint(principal, endpointId);
        if (!(yield* store.markDeleted(endpointId, at))) {
          return yield* Effect.fail(new NotFound({ resource: "webhook_endpoint", detail: "No such webhook endpoint." }));
        }
        yield* audit({
          merchantId: caller.merchantId,
          actor: actorOf(caller),
          action: "webhook_endpoint.deleted",
          subjectType: "webhook_endpoint",
          subjectId: endpointId,
          reason: "merchant request",
        });
      }),
    );
  }).pipe(withSpan("Payments.deleteWebhookEndpoint"));

/** The overlap a secret rotation keeps the previous secret signing when none is asked (one day). */
export const defaultSecretOverlapSeconds = 24 * 3600;
/** The longest overlap a secret rotation may keep the previous secret signing (7 days, as API keys). */
export const maxSecretOverlapSeconds = 7 * 24 * 3600;

/**
 * Rotates the signing secret of one of the caller's live endpoints (spec, Authentication 5:
 * secrets rotate with overlapping keys): a fresh secret signs from now on and is answered once;
 * the replaced one keeps signing too (one more `v1=` per delivery) for `overlapSeconds`, 0 ending
 * it at once. A rotation during an overlap drops the oldest secret: at most two are live. Audited
 * with the caller and `reason`, never the secret.
 */
export const rotateWebhookEndpointSecret = (
  principal: Principal,
  endpointId: WebhookEndpointId,
  input: { readonly overlapSeconds?: number | undefined; readonly reason?: string | undefined },
): Effect.Effect<
  { readonly endpoint: WebhookEndpoint; readonly secret: string; readonly previousSecretExpiresAt: Date | null },
  Forbidden | NotFound | ValidationFailed,
  WebhookEndpoints | PaymentsRepository | Transactions | Ids
> =>
  Effect.gen(function* () {
    const overlapSeconds = input.overlapSeconds ?? defaultSecretOverlapSeconds;
    const reason = input.reason ?? "merchant request";
    const store = yield* WebhookEndpoints;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const { caller, endpoint } = yield* ownedEndpoint(principal, endpointId);
        if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > maxSecretOverlapSeconds) {
          return yield* Effect.fail(
            new ValidationFailed({ errors: [{ path: "overlap_seconds", message: `must be an integer from 0 to ${maxSecretOverlapSeconds}` }] }),
          );
        }
        if (reason.trim().length === 0 || reason.length > 500) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "must be 1 to 500 characters" }] }));
        }
        const at = yield* now;
        const previousSecretExpiresAt = overlapSeconds === 0 ? null : new Date(at.getTime() + overlapSeconds * 1000);
        const rotated = yield* store.rotateSecret({ id: endpointId, at, previousExpiresAt: previousSecretExpiresAt });
        if (rotated === null) {
          return yield* Effect.fail(new NotFound({ resource: "webhook_endpoint", detail: "No such webhook endpoint." }));
        }
        yield* audit({
          merchantId: caller.merchantId,
          actor: actorOf(caller),
          action: "webhook_endpoint.secret_rotated",
          subjectType: "webhook_endpoint",
          subjectId: endpointId,
          reason,
          data: {
            overlap_seconds: overlapSeconds,
            previous_secret_expires_at: previousSecretExpiresAt === null ? null : previousSecretExpiresAt.toISOString(),
            dropped_live_previous_secret: rotated.droppedLivePrevious,
          },
        });
        return { endpoint, secret: rotated.secret, previousSecretExpiresAt };
      }),
    );
  }).pipe(withSpan("Payments.rotateWebhookEndpointSecret"));

/** Deliveries of one of the caller's endpoints (deleted ones too), newest first, with attempts. */
export const listWebhookDeliveries = (
  principal: Principal,
  endpointId: WebhookEndpointId,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<DeliveryWithAttempts>, Forbidden | NotFound | InvalidCursor, WebhookEndpoints> =>
  Effect.gen(function* () {
    yield* ownedEndpoint(principal, endpointId);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* WebhookEndpoints).listDeliveries({ endpointId, ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (row) => [row.delivery.id]);
  }).pipe(withSpan("Payments.listWebhookDeliveries"));
