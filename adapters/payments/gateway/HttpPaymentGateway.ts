/**
 * The payment gateway over HTTP: calls the payment service's own API (`/v1/payment-intents`,
 * `/v1/refunds`) with the merchant's API key and an `Idempotency-Key` per step, so the server's
 * one idempotency path makes retries safe. problem+json answers become the port's typed errors
 * by their stable `code`; a network error, a timeout or a 5xx is `PaymentOutcomeAmbiguous`,
 * never guessed (retrying under the same key is safe). API keys never appear in errors or logs.
 */
import { Effect } from "effect";
import {
  PaymentGatewayRefused,
  PaymentOutcomeAmbiguous,
  type AuthorizeRequest,
  type GatewayPayment,
  type PaymentGateway,
  type PaymentGatewayError,
} from "../../../ports/PaymentGateway.js";
import {
  categoryOfStatus,
  checkGatewayKey,
  gatewayErrorOf,
  paymentOfWire,
  refundOfWire,
  releaseAttemptKey,
  releaseMustWait,
  releaseStep,
  stepKey,
} from "./GatewayErrors.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Options of the HTTP gateway. */
export interface HttpPaymentGatewayOptions {
  /** The payment service's base URL, e.g. `https://payments.internal` (no trailing slash needed). */
  readonly baseUrl: string;
  /** The merchant's API key (`sk_...`, scopes payments:write and refunds:write); undefined refuses the call. */
  readonly apiKeyFor: (merchantId: string) => string | undefined;
  /** Per request (default 30 s); a timeout is an ambiguous outcome. */
  readonly timeoutMs?: number;
  /** The fetch implementation (default: the global one). */
  readonly fetch?: typeof fetch;
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Builds the HTTP gateway. */
export const makeHttpPaymentGateway = (options: HttpPaymentGatewayOptions): PaymentGateway => {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;

  const send = (
    operation: string,
    paymentId: string | null,
    merchantId: string,
    request: { readonly method: "GET" | "POST"; readonly path: string; readonly idempotencyKey?: string; readonly body?: unknown },
  ): Effect.Effect<Answer, PaymentGatewayError> =>
    Effect.gen(function* () {
      const apiKey = options.apiKeyFor(merchantId);
      if (apiKey === undefined) return yield* Effect.fail(new PaymentGatewayRefused({ detail: "No API key for this merchant." }));
      const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, Accept: "application/json, application/problem+json" };
      if (request.idempotencyKey !== undefined) headers["Idempotency-Key"] = request.idempotencyKey;
      if (request.body !== undefined) headers["Content-Type"] = "application/json";
      const ambiguous = (detail: string) => new PaymentOutcomeAmbiguous({ operation, paymentId, detail });
      const response = yield* Effect.tryPromise({
        try: (signal) =>
          doFetch(`${base}${request.path}`, {
            method: request.method,
            headers,
            ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
            signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
          }).then(async (r) => ({ status: r.status, text: await r.text() })),
        // The request may have reached the service: whether it acted is unknown.
        catch: () => ambiguous("The payment service could not be reached or did not answer in time."),
      });
      let body: Record<string, unknown> = {};
      try {
        body = response.text === "" ? {} : (JSON.parse(response.text) as Record<string, unknown>);
      } catch {
        if (response.status < 400) return yield* Effect.fail(ambiguous("The payment service answered something unreadable."));
      }
      if (response.status >= 400) {
        const code = typeof body.code === "string" ? body.code : `http_${response.status}`;
        return yield* Effect.fail(
          gatewayErrorOf(operation, paymentId, {
            code,
            category: categoryOfStatus(response.status),
            detail: typeof body.detail === "string" ? body.detail : undefined,
            extensions: body,
          }),
        );
      }
      return { status: response.status, body };
    });

  const intentPath = (id: string, action = "") => `/v1/payment-intents/${encodeURIComponent(id)}${action}`;
  const payment = (answer: Answer): GatewayPayment => paymentOfWire(answer.body);

  /** Step 1 of an authorization: the intent, once per key (a retry finds the same one); it holds no money until confirmed. */
  const createStep = (req: AuthorizeRequest, key: string, operation: string) =>
    send(operation, null, req.merchantId, {
      method: "POST",
      path: "/v1/payment-intents",
      idempotencyKey: stepKey(key, "create"),
      // `metadata` is not stored by the service; it binds the caller's reference into the key's request hash.
      body: {
        amount_minor: req.amount.amount_minor,
        currency: req.amount.currency,
        capture_method: req.captureMethod ?? "manual",
        payment_method: req.paymentMethod,
        metadata: { reference: req.reference },
      },
    }).pipe(Effect.map((created) => payment(created).paymentId));

  const current = (merchantId: string, paymentId: string, operation: string) =>
    send(operation, paymentId, merchantId, { method: "GET", path: intentPath(paymentId) }).pipe(Effect.map(payment));

  return {
    authorize: (req) =>
      Effect.gen(function* () {
        const key = yield* checkGatewayKey(req.idempotencyKey);
        const intentId = yield* createStep(req, key, "authorize");
        const confirmed = yield* send("authorize", intentId, req.merchantId, {
          method: "POST",
          path: intentPath(intentId, "/confirm"),
          idempotencyKey: stepKey(key, "confirm"),
          body: {},
        });
        if (confirmed.status === 202) {
          return yield* Effect.fail(
            new PaymentOutcomeAmbiguous({
              operation: "authorize",
              paymentId: intentId,
              detail: "The provider's answer is not known yet; read the payment's status later.",
            }),
          );
        }
        return payment(confirmed);
      }).pipe(withSpan("PaymentGateway.http.authorize")),
    capture: (req) =>
      Effect.flatMap(checkGatewayKey(req.idempotencyKey), (key) =>
        send("capture", req.paymentId, req.merchantId, {
          method: "POST",
          path: intentPath(req.paymentId, "/capture"),
          idempotencyKey: stepKey(key, "capture"),
          body: req.amount === undefined ? {} : { amount_minor: req.amount.amount_minor, currency: req.amount.currency },
        }),
      ).pipe(Effect.map(payment), withSpan("PaymentGateway.http.capture")),
    cancel: (req) =>
      Effect.flatMap(checkGatewayKey(req.idempotencyKey), (key) =>
        send("cancel", req.paymentId, req.merchantId, {
          method: "POST",
          path: intentPath(req.paymentId, "/cancel"),
          idempotencyKey: stepKey(key, "cancel"),
        }),
      ).pipe(Effect.map(payment), withSpan("PaymentGateway.http.cancel")),
    refund: (req) =>
      Effect.flatMap(checkGatewayKey(req.idempotencyKey), (key) =>
        send("refund", req.paymentId, req.merchantId, {
          method: "POST",
          path: "/v1/refunds",
          idempotencyKey: stepKey(key, "refund"),
          body: { payment_intent_id: req.paymentId, amount_minor: req.amount.amount_minor, currency: req.amount.currency },
        }),
      ).pipe(
        Effect.map((answer) => refundOfWire(answer.body)),
        withSpan("PaymentGateway.http.refund"),
      ),
    releaseAuthorization: (req) =>
      Effect.gen(function* () {
        const key = yield* checkGatewayKey(req.idempotencyKey);
        // The authorization's own step 1: the same intent when it was made, an unconfirmed one when not.
        const intentId = yield* createStep(req, key, "release");
        const settled = (p: GatewayPayment) => (releaseStep(p.status) === "done" ? Effect.succeed(p) : Effect.fail(releaseMustWait(p.paymentId)));
        const before = yield* current(req.merchantId, intentId, "release");
        if (releaseStep(before.status) !== "cancel") return yield* settled(before);
        return yield* send("release", intentId, req.merchantId, {
          method: "POST",
          path: intentPath(intentId, "/cancel"),
          idempotencyKey: releaseAttemptKey(key),
        }).pipe(
          Effect.map(payment),
          // A confirm started meanwhile: the status after it decides.
          Effect.catchTag("PaymentStateConflict", () => Effect.flatMap(current(req.merchantId, intentId, "release"), settled)),
        );
      }).pipe(withSpan("PaymentGateway.http.release")),
    status: (req) => current(req.merchantId, req.paymentId, "status").pipe(withSpan("PaymentGateway.http.status")),
  };
};
