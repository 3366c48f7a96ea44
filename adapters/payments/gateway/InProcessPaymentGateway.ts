/**
 * The payment gateway inside the same process: it runs the payment core's programs
 * (CreateIntent, ConfirmIntent, CaptureIntent, CancelIntent, CreateRefund, GetIntent) as the
 * merchant, on the payment module's runtime, under the kernel's one idempotency path
 * (`runIdempotent` over the IdempotencyStore; creating the intent, one transaction, commits its
 * key and answer with it: `runIdempotentInTransaction`). Each call is forked on that runtime, so it runs
 * OUTSIDE any transaction the caller has open: a rolled-back order never rolls back a charge
 * the provider already made, and the provider call is never made inside the caller's transaction.
 *
 * Stored responses use the payment API's wire views, and failures the caller may see again are
 * stored like the HTTP path stores 4xx answers; a lost provider answer releases the key, so a
 * retry re-sends the same stable provider reference and never charges twice.
 */
import { createHash } from "node:crypto";
import { Effect, Fiber } from "effect";
import { toWire } from "../../../core/kernel/Wire.js";
import { PaymentIntentView, paymentIntentView, type PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import { RefundView, refundView, type Refund } from "../../../core/payments/model/Refund.js";
import { isDomainError, type DomainErrorShape } from "../../../core/kernel/Errors.js";
import { runIdempotent, runIdempotentInTransaction } from "../../../core/kernel/Idempotency.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { cancelIntent } from "../../../core/payments/CancelIntent.js";
import { captureIntent } from "../../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../../core/payments/CreateIntent.js";
import { createRefund } from "../../../core/payments/CreateRefund.js";
import { getIntent } from "../../../core/payments/GetIntent.js";
import type { IdempotencyStore, StoredResponse } from "../../../ports/IdempotencyStore.js";
import type { Ids } from "../../../ports/Ids.js";
import type { Jobs } from "../../../ports/Jobs.js";
import type { Outbox } from "../../../ports/Outbox.js";
import { principalScope, type Principal } from "../../../ports/Principal.js";
import type { Transactions } from "../../../ports/Transactions.js";
import {
  PaymentGatewayRefused,
  PaymentOutcomeAmbiguous,
  type AuthorizeRequest,
  type GatewayPayment,
  type PaymentGateway,
  type PaymentGatewayError,
} from "../../../ports/PaymentGateway.js";
import type { PaymentProvider } from "../../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import type { RiskHolds } from "../../../ports/payments/RiskHolds.js";
import {
  checkGatewayKey,
  gatewayErrorOf,
  paymentOfWire,
  refundOfWire,
  releaseMustWait,
  releaseStep,
  stepKey,
  type ServiceFailure,
} from "./GatewayErrors.js";
// The shared PaymentGateway port carries plain ids (another module's boundary); they are branded here, where they enter the payment core.
import { PaymentIntentId } from "../../../core/payments/model/Ids.js";

/** The services the payment programs run with (the payment module's runtime provides them). */
export type InProcessGatewayServices =
  | PaymentsRepository
  | Transactions
  | Ids
  | PaymentProvider
  | Outbox
  | Jobs
  | RiskHolds
  | IdempotencyStore;

/** The part of a runtime the gateway uses (an Effect `ManagedRuntime` of the host fits). */
export interface PaymentCoreRuntime {
  readonly runFork: <A, E>(effect: Effect.Effect<A, E, InProcessGatewayServices>) => Fiber.RuntimeFiber<A, E>;
}

/** Options of the in-process gateway. */
export interface InProcessPaymentGatewayOptions {
  /** The payment module's runtime, asked for at each call: hosts build it after binding the ports. */
  readonly runtime: () => PaymentCoreRuntime;
  /** The calling module, recorded in the audit log as the merchant's key (`gateway:<caller>`). */
  readonly caller?: string;
}

/** An intent as the payment API shows it to its merchant: what the gateway stores and reads back. */
const intentWire = (intent: PaymentIntent) => toWire(PaymentIntentView, paymentIntentView(intent));
/** A refund as the payment API shows it to its merchant. */
const refundWire = (refund: Refund) => toWire(RefundView, refundView(refund));

/**
 * The hash that binds a gateway key to one request: SHA-256 of the operation and the request's
 * fields in key order (the same digest the HTTP path computes for method, path and canonical body).
 */
const gatewayRequestHash = (operation: string, request: Readonly<Record<string, string | number | null>>): string => {
  const sorted = Object.fromEntries(Object.keys(request).sort().map((key) => [key, request[key]]));
  return createHash("sha256").update(`GATEWAY\n/${operation}\n${JSON.stringify(sorted)}`).digest("hex");
};

/** The scopes the gateway acts with: what an order or delivery core needs of the merchant. */
const gatewayScopes = ["payments:write", "refunds:write", "ledger:read"];

/** Stored body of a failure the caller sees again on replay (like a stored 4xx answer). */
interface StoredFailure {
  readonly failure: ServiceFailure;
}

const failureOf = (error: DomainErrorShape): ServiceFailure => {
  const extensions = (error as { problemExtensions?: unknown }).problemExtensions;
  return {
    code: error.code,
    category: error.category,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    ...(typeof extensions === "object" && extensions !== null ? { extensions: extensions as Record<string, unknown> } : {}),
  };
};

/**
 * The answer of one step as a stored response: success as the wire view, a domain failure as
 * a stored failure; only an unavailable (lost) answer stays a failure, which releases the key.
 */
const settle = <E, R>(step: Effect.Effect<StoredResponse, E, R>): Effect.Effect<StoredResponse, E, R> =>
  Effect.catchIf(
    step,
    (error): error is E => isDomainError(error) && error.category !== "unavailable",
    (error) => Effect.succeed<StoredResponse>({ status: 400, body: { failure: failureOf(error as DomainErrorShape) } satisfies StoredFailure }),
  );

/** Any domain failure of `operation` as the port's error. */
const toGatewayError =
  (operation: string, paymentId: string | null) =>
  (error: unknown): PaymentGatewayError =>
    isDomainError(error)
      ? gatewayErrorOf(operation, paymentId, failureOf(error))
      : new PaymentOutcomeAmbiguous({ operation, paymentId, detail: "unexpected failure of the payment service" });

/** The body of a stored response, or the stored failure as the port's error. */
const answerOf = <A>(operation: string, paymentId: string | null, response: StoredResponse): Effect.Effect<A, PaymentGatewayError> => {
  const body = response.body as A | StoredFailure;
  return typeof body === "object" && body !== null && "failure" in body
    ? Effect.fail(gatewayErrorOf(operation, paymentId, body.failure))
    : Effect.succeed(body as A);
};

/** Builds the in-process gateway. */
export const makeInProcessPaymentGateway = (options: InProcessPaymentGatewayOptions): PaymentGateway => {
  const keyId = `gateway:${options.caller ?? "in-process"}`;
  const principalOf = (merchantId: string): Principal => ({ kind: "merchant", merchantId, keyId, scopes: gatewayScopes });

  /** Runs `program` on the payment runtime, in its own fiber (no caller transaction is joined). */
  const onPaymentRuntime = <A, E>(program: Effect.Effect<A, E, InProcessGatewayServices>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const fiber = options.runtime().runFork(program);
      return Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)));
    });

  /**
   * One step under the kernel's idempotency path, in the gateway's own key space of the merchant.
   * `oneTransaction`: the step is one transaction calling nothing outside (creating an intent), so
   * its key and stored answer commit with it.
   */
  const idempotentStep = <E>(
    principal: Principal,
    key: string,
    operation: string,
    request: Readonly<Record<string, string | number | null>>,
    paymentId: string | null,
    execute: Effect.Effect<StoredResponse, E, InProcessGatewayServices>,
    oneTransaction = false,
  ) => {
    // The gateway's keys live beside the HTTP keys of the same merchant, never colliding with them.
    const underKey = { scope: `${principalScope(principal)}/gateway`, key, requestHash: gatewayRequestHash(operation, request) };
    return (oneTransaction ? runIdempotentInTransaction(underKey, execute, settle) : runIdempotent(underKey, settle(execute))).pipe(
      Effect.mapError(toGatewayError(operation, paymentId)),
      Effect.map(({ response }) => response),
    );
  };

  const mutation = <A>(
    operation: string,
    merchantId: string,
    idempotencyKey: string,
    paymentId: string | null,
    body: (principal: Principal, key: string) => Effect.Effect<A, PaymentGatewayError, InProcessGatewayServices>,
  ): Effect.Effect<A, PaymentGatewayError> =>
    Effect.flatMap(checkGatewayKey(idempotencyKey), (key) => onPaymentRuntime(body(principalOf(merchantId), key))).pipe(
      withSpan(`PaymentGateway.inProcess.${operation}`),
    );

  const intentAnswer = (operation: string, paymentId: string | null, response: StoredResponse) =>
    Effect.map(answerOf<unknown>(operation, paymentId, response), paymentOfWire);

  /**
   * Step 1 of an authorization: the intent, once per key (a retry finds the same one). One
   * transaction calling nothing outside: it holds no money until step 2 confirms it.
   */
  const createStep = (principal: Principal, key: string, req: AuthorizeRequest, operation: string) =>
    Effect.gen(function* () {
      const merchant = yield* (yield* PaymentsRepository).findMerchant(req.merchantId);
      if (merchant === null) return yield* Effect.fail(new PaymentGatewayRefused({ detail: "Unknown merchant." }));
      const created = yield* idempotentStep(
        principal,
        stepKey(key, "create"),
        "authorize",
        {
          reference: req.reference,
          amount_minor: req.amount.amount_minor,
          currency: req.amount.currency,
          capture_method: req.captureMethod ?? "manual",
          payment_method: req.paymentMethod,
        },
        null,
        createIntent(principal, {
          amountMinor: req.amount.amount_minor,
          currency: req.amount.currency,
          captureMethod: req.captureMethod ?? "manual",
          paymentMethod: req.paymentMethod,
        }).pipe(Effect.map((intent) => ({ status: 201, body: intentWire(intent) }))),
        true,
      );
      return yield* intentAnswer(operation, null, created);
    });

  /** The intent as it stands now, as the port's payment. */
  const currentPayment = (principal: Principal, paymentId: string, operation: string) =>
    getIntent(principal, PaymentIntentId.make(paymentId)).pipe(
      Effect.map((intent): GatewayPayment => paymentOfWire(intentWire(intent))),
      Effect.mapError(toGatewayError(operation, paymentId)),
    );

  return {
    authorize: (req) =>
      mutation("authorize", req.merchantId, req.idempotencyKey, null, (principal, key) =>
        Effect.gen(function* () {
          const intent = yield* createStep(principal, key, req, "authorize");
          // Step 2: confirm it; a lost provider answer releases only this step's key.
          const confirmed = yield* idempotentStep(
            principal,
            stepKey(key, "confirm"),
            "authorize",
            { payment_intent_id: intent.paymentId },
            intent.paymentId,
            confirmIntent(principal, PaymentIntentId.make(intent.paymentId), {}).pipe(
              Effect.map(({ intent: after, outcome, declineCode }): StoredResponse =>
                outcome === "declined"
                  ? {
                      status: 402,
                      body: {
                        failure: {
                          code: "card_declined",
                          category: "unprocessable",
                          detail: "The payment method was declined.",
                          extensions: { decline_code: declineCode ?? "card_declined", payment_intent: intentWire(after) },
                        },
                      } satisfies StoredFailure,
                    }
                  : { status: outcome === "processing" ? 202 : 200, body: intentWire(after) },
              ),
            ),
          );
          const payment = yield* intentAnswer("authorize", intent.paymentId, confirmed);
          if (payment.status === "processing") {
            return yield* Effect.fail(
              new PaymentOutcomeAmbiguous({
                operation: "authorize",
                paymentId: payment.paymentId,
                detail: "The provider's answer is not known yet; read the payment's status later.",
              }),
            );
          }
          return payment;
        }),
      ),
    capture: (req) =>
      mutation("capture", req.merchantId, req.idempotencyKey, req.paymentId, (principal, key) =>
        Effect.flatMap(
          idempotentStep(
            principal,
            stepKey(key, "capture"),
            "capture",
            { payment_id: req.paymentId, amount_minor: req.amount?.amount_minor ?? null, currency: req.amount?.currency ?? null },
            req.paymentId,
            captureIntent(principal, PaymentIntentId.make(req.paymentId), {
              ...(req.amount === undefined ? {} : { amountMinor: req.amount.amount_minor, currency: req.amount.currency }),
            }).pipe(Effect.map((intent) => ({ status: 200, body: intentWire(intent) }))),
          ),
          (response) => intentAnswer("capture", req.paymentId, response),
        ),
      ),
    cancel: (req) =>
      mutation("cancel", req.merchantId, req.idempotencyKey, req.paymentId, (principal, key) =>
        Effect.flatMap(
          idempotentStep(
            principal,
            stepKey(key, "cancel"),
            "cancel",
            { payment_id: req.paymentId },
            req.paymentId,
            cancelIntent(principal, PaymentIntentId.make(req.paymentId)).pipe(Effect.map((intent) => ({ status: 200, body: intentWire(intent) }))),
          ),
          (response) => intentAnswer("cancel", req.paymentId, response),
        ),
      ),
    refund: (req) =>
      mutation("refund", req.merchantId, req.idempotencyKey, req.paymentId, (principal, key) =>
        Effect.flatMap(
          idempotentStep(
            principal,
            stepKey(key, "refund"),
            "refund",
            { payment_id: req.paymentId, amount_minor: req.amount.amount_minor, currency: req.amount.currency },
            req.paymentId,
            createRefund(principal, {
              intentId: PaymentIntentId.make(req.paymentId),
              amountMinor: req.amount.amount_minor,
              currency: req.amount.currency,
              requestKey: stepKey(key, "refund"),
            }).pipe(
              Effect.map((refund) => ({ status: refund.status === "pending" ? 202 : 201, body: refundWire(refund) })),
            ),
          ),
          (response) => Effect.map(answerOf<unknown>("refund", req.paymentId, response), refundOfWire),
        ),
      ),
    releaseAuthorization: (req) =>
      mutation("release", req.merchantId, req.idempotencyKey, null, (principal, key) =>
        Effect.gen(function* () {
          // The authorization's own step 1: the same intent when it was made, an unconfirmed one when not.
          const created = yield* createStep(principal, key, req, "release");
          const settled = (payment: GatewayPayment) =>
            releaseStep(payment.status) === "done" ? Effect.succeed(payment) : Effect.fail(releaseMustWait(payment.paymentId));
          const payment = yield* currentPayment(principal, created.paymentId, "release");
          const step = releaseStep(payment.status);
          if (step !== "cancel") return yield* settled(payment);
          // Idempotent by itself (the void goes under the intent's one void reference): no key of its own.
          return yield* cancelIntent(principal, PaymentIntentId.make(payment.paymentId), "authorization released by its caller").pipe(
            Effect.map((intent): GatewayPayment => paymentOfWire(intentWire(intent))),
            Effect.mapError(toGatewayError("release", payment.paymentId)),
            // A confirm started meanwhile: the status after it decides.
            Effect.catchTag("PaymentStateConflict", () => Effect.flatMap(currentPayment(principal, payment.paymentId, "release"), settled)),
          );
        }),
      ),
    status: (req) =>
      onPaymentRuntime(currentPayment(principalOf(req.merchantId), req.paymentId, "status")).pipe(withSpan("PaymentGateway.inProcess.status")),
  };
};
