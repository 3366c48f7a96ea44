/**
 * Replay of a dead-lettered merchant webhook delivery under dual control (spec: "Platform
 * operator: provider health and replay controls under dual control"). Platform operators are
 * users listed in configuration; one operator requests a replay with a reason, a DIFFERENT
 * operator approves it, and only then is the delivery put back in line. Every step is audited
 * with its actor and reason; the database also refuses an approval by the requester.
 */
import { Effect } from "effect";
import { Conflict, DomainError, Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { defaultMerchantWebhookMaxAttempts } from "./MerchantWebhookFanout.js";
import { merchantWebhookDeliveryJob } from "./MerchantWebhookDelivery.js";
import type { ReplayRequest } from "./model/ReplayRequest.js";
import type { WebhookDelivery } from "./model/WebhookDelivery.js";
import { withSpan } from "../kernel/Span.js";
import { ReplayRequestId, WebhookDeliveryId } from "./model/Ids.js";

/** The same operator tried to approve its own request (409 dual_control_same_operator). */
export class DualControlViolation extends DomainError("DualControlViolation", "dual_control_same_operator", "conflict") {}

/** Who the platform operators are, and how many attempts a replayed delivery gets. */
export interface OperatorPolicy {
  /** User ids of the platform operators (PLATFORM_OPERATORS). */
  readonly operators: ReadonlyArray<string>;
  readonly maxAttempts?: number;
}

/** The audit actor of an operator. */
export const operatorActor = (userId: string): string => `operator:${userId}`;

/** The caller's user id when it is a platform operator; Forbidden otherwise. */
export const requireOperator = (principal: Principal, policy: OperatorPolicy): Effect.Effect<string, Forbidden> =>
  principal.kind === "user" && policy.operators.includes(principal.userId)
    ? Effect.succeed(principal.userId)
    : Effect.fail(new Forbidden({ detail: "This endpoint is for platform operators." }));

const checkReason = (reason: string): Effect.Effect<string, ValidationFailed> => {
  const trimmed = reason.trim();
  return trimmed.length >= 1 && trimmed.length <= 500
    ? Effect.succeed(trimmed)
    : Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "must be 1 to 500 characters" }] }));
};

const deadDelivery = (deliveryId: string): Effect.Effect<WebhookDelivery, NotFound | Conflict, WebhookEndpoints> =>
  Effect.gen(function* () {
    const delivery = yield* (yield* WebhookEndpoints).findDelivery(deliveryId, { forUpdate: true });
    if (delivery === null) return yield* Effect.fail(new NotFound({ resource: "webhook_delivery", detail: "No such webhook delivery." }));
    if (delivery.status !== "dead") {
      return yield* Effect.fail(new Conflict({ code: "delivery_not_dead", detail: "Only a dead-lettered delivery can be replayed." }));
    }
    return delivery;
  });

/** First operator: asks for a replay of a dead delivery, with a reason. */
export const requestDeliveryReplay = (
  principal: Principal,
  policy: OperatorPolicy,
  deliveryId: WebhookDeliveryId,
  reason: string,
): Effect.Effect<ReplayRequest, Forbidden | ValidationFailed | NotFound | Conflict, WebhookEndpoints | PaymentsRepository | Transactions | Ids> =>
  Effect.gen(function* () {
    const operator = yield* requireOperator(principal, policy);
    const why = yield* checkReason(reason);
    const store = yield* WebhookEndpoints;
    const id = ReplayRequestId.make(yield* (yield* Ids).next);
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const delivery = yield* deadDelivery(deliveryId);
        const request: ReplayRequest = {
          id,
          deliveryId,
          requestedBy: operator,
          reason: why,
          requestedAt: at,
          approvedBy: null,
          approvalReason: null,
          approvedAt: null,
        };
        if (!(yield* store.insertReplayRequest(request))) {
          return yield* Effect.fail(new Conflict({ code: "replay_already_requested", detail: "This delivery already has an open replay request." }));
        }
        yield* audit({
          merchantId: delivery.merchantId,
          actor: operatorActor(operator),
          action: "webhook_delivery.replay_requested",
          subjectType: "webhook_delivery",
          subjectId: deliveryId,
          reason: why,
          data: { replay_request_id: id },
        });
        return request;
      }),
    );
  }).pipe(withSpan("Payments.requestDeliveryReplay"));

/** Second, different operator: approves the request; the delivery goes back in line at once. */
export const approveDeliveryReplay = (
  principal: Principal,
  policy: OperatorPolicy,
  deliveryId: WebhookDeliveryId,
  requestId: string,
  reason: string,
): Effect.Effect<
  ReplayRequest,
  Forbidden | ValidationFailed | NotFound | Conflict | DualControlViolation,
  WebhookEndpoints | PaymentsRepository | Transactions | Jobs | Ids
> =>
  Effect.gen(function* () {
    const operator = yield* requireOperator(principal, policy);
    const why = yield* checkReason(reason);
    const store = yield* WebhookEndpoints;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Lock order: the delivery, then its request (the same as requestDeliveryReplay).
        const delivery = yield* deadDelivery(deliveryId);
        const request = yield* store.findReplayRequest(requestId, { forUpdate: true });
        if (request === null || request.deliveryId !== deliveryId) {
          return yield* Effect.fail(new NotFound({ resource: "replay_request", detail: "No such replay request." }));
        }
        if (request.approvedBy !== null) {
          return yield* Effect.fail(new Conflict({ code: "replay_already_approved", detail: "This replay request was already approved." }));
        }
        if (request.requestedBy === operator) {
          return yield* Effect.fail(new DualControlViolation({ detail: "A replay needs a second, different operator to approve it." }));
        }
        if (!(yield* store.approveReplayRequest({ id: requestId, approvedBy: operator, reason: why, at }))) {
          return yield* Effect.fail(new Conflict({ code: "replay_already_approved", detail: "This replay request was already approved." }));
        }
        yield* store.updateDelivery({ ...delivery, status: "pending", lastError: null, updatedAt: at });
        yield* merchantWebhookDeliveryJob.schedule(
          { delivery_id: deliveryId },
          { key: deliveryId, runAt: at, maxAttempts: policy.maxAttempts ?? defaultMerchantWebhookMaxAttempts },
        );
        yield* audit({
          merchantId: delivery.merchantId,
          actor: operatorActor(operator),
          action: "webhook_delivery.replay_approved",
          subjectType: "webhook_delivery",
          subjectId: deliveryId,
          reason: why,
          data: { replay_request_id: requestId, requested_by: request.requestedBy },
        });
        return { ...request, approvedBy: operator, approvalReason: why, approvedAt: at };
      }),
    );
  }).pipe(withSpan("Payments.approveDeliveryReplay"));
