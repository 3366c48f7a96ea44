/** Routes of payment intents: create, confirm, read, capture, cancel. */
import { Effect, Schema } from "effect";
import { cancelIntent } from "../../../core/payments/CancelIntent.js";
import { captureIntent } from "../../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../../core/payments/ConfirmIntent.js";
import { createIntentWithClientSecret, getClientView, reissueClientSecret } from "../../../core/payments/ClientView.js";
import { PaymentIntentId } from "../../../core/payments/model/Ids.js";
import {
  CreatedPaymentIntentWire,
  IntentClientViewWire,
  PaymentIntentWire,
  clientViewOf,
  paymentIntentView,
  type PaymentIntent,
} from "../../../core/payments/model/PaymentIntent.js";
import type { Principal } from "../../../ports/Principal.js";
import { getIntent } from "../../../core/payments/GetIntent.js";
import { makeProblem, problemContentType } from "../ProblemJson.js";
import { defineRoute } from "../Route.js";
import { CaptureIntentBody, ConfirmIntentBody, CreateIntentBody, IntentIdParams } from "./PaymentSchemas.js";

const tags = ["payments"];

/** What the caller may see of an intent: the merchant's view, or the client view for the customer. */
const IntentAsSeen = Schema.Union(PaymentIntentWire, IntentClientViewWire);
const asSeenBy = (principal: Principal, intent: PaymentIntent) =>
  principal.kind === "client" ? clientViewOf(intent) : paymentIntentView(intent);
// The customer's answers carry its intent's state: nobody may cache them.
const privateTo = (principal: Principal) => (principal.kind === "client" ? { headers: { "Cache-Control": "no-store" } } : {});

/** The 402 answer of a declined confirm: a problem body carrying the intent as the caller may see it, confirmable again. */
const DeclinedProblemAsSeen = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Literal(402),
  detail: Schema.String,
  code: Schema.Literal("card_declined"),
  decline_code: Schema.String,
  payment_intent: IntentAsSeen,
});

/**
 * POST /v1/payment-intents — create an intent (payments:write); answers a client secret. The
 * stored idempotency answer is the intent without its client secret (secrets are never kept in
 * clear, spec Authentication 5): a replay answers a freshly minted secret that replaces the
 * previous one (reissueClientSecret).
 */
const createIntentRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents",
  operationId: "createPaymentIntent",
  summary: "Create a payment intent",
  description:
    "A replay under the same Idempotency-Key answers the stored intent with a newly minted client secret, which replaces the previous one: client secrets are never stored in clear.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  unstored: {
    fields: ["client_secret"],
    reissue: ({ principal }, stored) =>
      reissueClientSecret(principal, PaymentIntentId.make(String(stored.id))).pipe(Effect.map((secret) => ({ client_secret: secret }))),
  },
  body: CreateIntentBody,
  responses: { 201: CreatedPaymentIntentWire },
  problems: [403, 409, 422],
  handler: ({ principal, body }) =>
    createIntentWithClientSecret(principal, {
      amountMinor: body.amount_minor,
      currency: body.currency,
      ...(body.capture_method === undefined ? {} : { captureMethod: body.capture_method }),
      ...(body.payment_method === undefined ? {} : { paymentMethod: body.payment_method }),
    }).pipe(
      Effect.map(({ intent, clientSecret }) => ({
        status: 201,
        body: { ...paymentIntentView(intent), clientSecret },
        etag: intent.version,
      })),
    ),
});

/** POST /v1/payment-intents/:id/confirm — 200 done, 202 still processing, 402 declined. */
const confirmIntentRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents/:id/confirm",
  operationId: "confirmPaymentIntent",
  summary: "Confirm a payment intent with a payment method token",
  description:
    "The owning merchant (payments:write) or the customer presenting the intent's client secret as its bearer credential; the customer sees the client view. Calls the provider under a stable reference. 202: the provider's answer is not known yet (processing). 402: declined; the intent takes another payment method. 429 confirm_risk with Retry-After: the intent was declined 5 times within the hour.",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  params: IntentIdParams,
  body: ConfirmIntentBody,
  responses: { 200: IntentAsSeen, 202: IntentAsSeen, 402: DeclinedProblemAsSeen },
  problems: [403, 404, 409, 422, 429, 503],
  handler: ({ principal, params, body }) =>
    confirmIntent(principal, params.id, body.payment_method === undefined ? {} : { paymentMethod: body.payment_method }).pipe(
      Effect.map(({ intent, outcome, declineCode }) => {
        if (outcome === "declined") {
          return {
            status: 402,
            headers: { "Content-Type": problemContentType, ...privateTo(principal).headers },
            body: makeProblem(402, "card_declined", "The payment method was declined; confirm again with another one.", {
              decline_code: declineCode ?? "card_declined",
              payment_intent: asSeenBy(principal, intent),
            }),
          };
        }
        return { status: outcome === "processing" ? 202 : 200, body: asSeenBy(principal, intent), etag: intent.version, ...privateTo(principal) };
      }),
    ),
});

/** GET /v1/payment-intents/:id — the owning merchant's view, or the client view for the customer. */
const getIntentRoute = defineRoute({
  method: "GET",
  path: "/v1/payment-intents/:id",
  operationId: "getPaymentIntent",
  summary: "Read a payment intent",
  description:
    "The owning merchant reads the whole intent; the customer presenting the intent's client secret as its bearer credential reads the restricted client view (no merchant, provider, token or ledger data).",
  tags,
  auth: "required",
  answersEtag: "version",
  params: IntentIdParams,
  responses: { 200: IntentAsSeen },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    principal.kind === "client"
      ? getClientView(principal, params.id).pipe(
          Effect.map((view) => ({ status: 200, body: view, ...privateTo(principal) })),
        )
      : getIntent(principal, params.id).pipe(Effect.map((intent) => ({ status: 200, body: paymentIntentView(intent), etag: intent.version }))),
});

/** POST /v1/payment-intents/:id/capture — capture a held authorization, fully or partly. */
const captureIntentRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents/:id/capture",
  operationId: "capturePaymentIntent",
  summary: "Capture an authorized payment intent (partial allowed)",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  params: IntentIdParams,
  body: CaptureIntentBody,
  responses: { 200: PaymentIntentWire },
  problems: [403, 404, 409, 422, 503],
  handler: ({ principal, params, body }) =>
    captureIntent(principal, params.id, {
      ...(body.amount_minor === undefined ? {} : { amountMinor: body.amount_minor }),
      ...(body.currency === undefined ? {} : { currency: body.currency }),
    }).pipe(Effect.map((intent) => ({ status: 200, body: paymentIntentView(intent), etag: intent.version }))),
});

/** POST /v1/payment-intents/:id/cancel — cancel an uncaptured intent (voids a held authorization). */
const cancelIntentRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents/:id/cancel",
  operationId: "cancelPaymentIntent",
  summary: "Cancel an uncaptured payment intent",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  params: IntentIdParams,
  responses: { 200: PaymentIntentWire },
  problems: [403, 404, 409, 503],
  handler: ({ principal, params }) =>
    cancelIntent(principal, params.id).pipe(Effect.map((intent) => ({ status: 200, body: paymentIntentView(intent), etag: intent.version }))),
});

/** The payment intent routes, in documentation order. */
export const paymentIntentRoutes = [createIntentRoute, confirmIntentRoute, getIntentRoute, captureIntentRoute, cancelIntentRoute];
