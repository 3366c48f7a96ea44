/**
 * The PaymentProvider port over HTTP, against the sandbox's API (SandboxServer.ts) or a provider
 * speaking the same dialect. Every call carries our stable reference, so a retry never acts
 * twice. Mapping: 2xx -> the answer; 402 -> Declined (authorize); 409/422 -> Rejected (capture,
 * refund, void); 404 -> null (lookup); anything else — network error, timeout, 5xx, an answer
 * we cannot read, an unexpected status — is ProviderOutcomeUnknown, never guessed.
 */
import { Effect, Schema } from "effect";
import type { ProviderOutcomeUnknown } from "../../../../core/payments/Errors.js";
import type { AuthorizeResult, PaymentProvider, ProviderPayment, SettleResult } from "../../../../ports/payments/PaymentProvider.js";
import { jsonOf, makeProviderRequest, outcomeUnknown, type HttpProviderOptions, type ProviderAnswer } from "./HttpProviderClient.js";

const PaymentStatus = Schema.Literal("authorized", "captured", "requires_action", "declined", "voided");

const AuthorizationAnswer = Schema.Struct({
  provider_payment_id: Schema.String,
  status: PaymentStatus,
  captured_minor: Schema.Int,
});
const DeclineAnswer = Schema.Struct({ error: Schema.Struct({ decline_code: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) }) });
const SettleAnswer = Schema.Struct({ amount_minor: Schema.Int });
const RejectionAnswer = Schema.Struct({ error: Schema.Struct({ code: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) }) });
const PaymentAnswer = Schema.Struct({
  reference: Schema.String,
  provider_payment_id: Schema.NullOr(Schema.String),
  status: PaymentStatus,
  amount_minor: Schema.Int,
  currency: Schema.String,
  captured_minor: Schema.Int,
  refunded_minor: Schema.Int,
  decline_code: Schema.NullOr(Schema.String),
});

/** Decodes the answer's body with `schema`; an unreadable answer is an unknown outcome. */
const decode = <A, I>(schema: Schema.Schema<A, I>, operation: string, answer: ProviderAnswer): Effect.Effect<A, ProviderOutcomeUnknown> =>
  Schema.decodeUnknown(schema)(jsonOf(answer)).pipe(
    Effect.mapError(() => outcomeUnknown(operation, `The payment provider's ${answer.status} answer could not be read.`)),
  );

const unexpected = (operation: string, answer: ProviderAnswer): Effect.Effect<never, ProviderOutcomeUnknown> =>
  Effect.fail(outcomeUnknown(operation, `The payment provider answered an unexpected ${answer.status}.`));

/** A PaymentProvider calling the provider API at `options.baseUrl`. */
export const makeHttpPaymentProvider = (options: HttpProviderOptions): PaymentProvider => {
  const request = makeProviderRequest(options);

  const settle = (operation: "capture" | "refund" | "void", path: string, body: Record<string, unknown>): Effect.Effect<SettleResult, ProviderOutcomeUnknown> =>
    request(operation, "POST", path, body).pipe(
      Effect.flatMap((answer): Effect.Effect<SettleResult, ProviderOutcomeUnknown> => {
        if (answer.status === 200) return decode(SettleAnswer, operation, answer).pipe(Effect.map((a) => ({ _tag: "Done" as const, amountMinor: a.amount_minor })));
        if (answer.status === 409 || answer.status === 422) {
          return decode(RejectionAnswer, operation, answer).pipe(Effect.map((a) => ({ _tag: "Rejected" as const, reason: a.error.code })));
        }
        return unexpected(operation, answer);
      }),
    );

  return {
    authorize: ({ reference, amount, paymentMethod, capture }) =>
      request("authorize", "POST", "/v1/authorizations", {
        reference,
        amount_minor: amount.amount_minor,
        currency: amount.currency,
        payment_method: paymentMethod,
        capture,
      }).pipe(
        Effect.flatMap((answer): Effect.Effect<AuthorizeResult, ProviderOutcomeUnknown> => {
          if (answer.status === 402) {
            return decode(DeclineAnswer, "authorize", answer).pipe(Effect.map((a) => ({ _tag: "Declined" as const, declineCode: a.error.decline_code })));
          }
          if (answer.status !== 200) return unexpected("authorize", answer);
          return decode(AuthorizationAnswer, "authorize", answer).pipe(
            Effect.flatMap((a): Effect.Effect<AuthorizeResult, ProviderOutcomeUnknown> => {
              if (a.status === "requires_action") return Effect.succeed({ _tag: "RequiresAction", providerPaymentId: a.provider_payment_id });
              if (a.status === "authorized" || a.status === "captured") {
                return Effect.succeed({ _tag: "Authorized", providerPaymentId: a.provider_payment_id, capturedMinor: a.captured_minor });
              }
              return unexpected("authorize", answer);
            }),
          );
        }),
      ),
    capture: ({ reference, providerPaymentId, amount }) =>
      settle("capture", "/v1/captures", { reference, provider_payment_id: providerPaymentId, amount_minor: amount.amount_minor, currency: amount.currency }),
    refund: ({ reference, providerPaymentId, amount }) =>
      settle("refund", "/v1/refunds", { reference, provider_payment_id: providerPaymentId, amount_minor: amount.amount_minor, currency: amount.currency }),
    void: ({ reference, providerPaymentId }) => settle("void", "/v1/voids", { reference, provider_payment_id: providerPaymentId }),
    lookup: (reference) =>
      request("lookup", "GET", `/v1/payments/${encodeURIComponent(reference)}`).pipe(
        Effect.flatMap((answer): Effect.Effect<ProviderPayment | null, ProviderOutcomeUnknown> => {
          if (answer.status === 404) return Effect.succeed(null);
          if (answer.status !== 200) return unexpected("lookup", answer);
          return decode(PaymentAnswer, "lookup", answer).pipe(
            Effect.map((p) => ({
              reference: p.reference,
              providerPaymentId: p.provider_payment_id,
              status: p.status,
              amount: { amount_minor: p.amount_minor, currency: p.currency },
              capturedMinor: p.captured_minor,
              refundedMinor: p.refunded_minor,
              declineCode: p.decline_code,
            })),
          );
        }),
      ),
  };
};
