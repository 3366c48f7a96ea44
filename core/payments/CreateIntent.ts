/** Command: create a payment intent (POST /v1/payment-intents). */
import { Effect } from "effect";
import { ValidationFailed, type Forbidden } from "../kernel/Errors.js";
import { makeMoney, type InvalidAmount } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import type { CaptureMethod, PaymentIntent } from "./model/PaymentIntent.js";
import { withSpan } from "../kernel/Span.js";
import { PaymentIntentId } from "./model/Ids.js";
import { isPaymentMethodToken, paymentMethodTokenMessage } from "./model/PaymentMethodToken.js";

/**
 * Fails ValidationFailed unless `paymentMethod` is absent or a provider token (spec: raw card
 * numbers and CVV are never stored): the in-process gateway passes other modules' strings here.
 */
export const requirePaymentMethodToken = (paymentMethod: string | undefined): Effect.Effect<void, ValidationFailed> =>
  paymentMethod === undefined || isPaymentMethodToken(paymentMethod)
    ? Effect.void
    : Effect.fail(new ValidationFailed({ errors: [{ path: "payment_method", message: paymentMethodTokenMessage }] }));

/** What a merchant asks for. */
export interface CreateIntentInput {
  readonly amountMinor: number;
  readonly currency: string;
  readonly captureMethod?: CaptureMethod;
  /** A provider token to attach now; the intent then waits in requires_confirmation. */
  readonly paymentMethod?: string;
}

/**
 * The checks of a creation that read nothing: the caller's scope and the amount. The HTTP route
 * runs them before its idempotency record, so every answer it stores is a created intent.
 */
export const checkCreateIntent = (principal: Principal, input: CreateIntentInput) =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "payments:write");
    const money = yield* makeMoney(input.amountMinor, input.currency);
    if (money.amount_minor <= 0) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "amount_minor", message: "must be a positive amount of minor units" }] }));
    }
    yield* requirePaymentMethodToken(input.paymentMethod);
    return { caller, money };
  });

/** Creates an intent of the calling merchant (scope payments:write). */
export const createIntent = (
  principal: Principal,
  input: CreateIntentInput,
): Effect.Effect<PaymentIntent, Forbidden | ValidationFailed | InvalidAmount, PaymentsRepository | Transactions | Ids> =>
  Effect.gen(function* () {
    const { caller, money } = yield* checkCreateIntent(principal, input);
    const id = PaymentIntentId.make(yield* (yield* Ids).next);
    const createdAt = yield* now;
    const intent: PaymentIntent = {
      id,
      merchantId: caller.merchantId,
      amountMinor: money.amount_minor,
      currency: money.currency,
      captureMethod: input.captureMethod ?? "automatic",
      status: input.paymentMethod === undefined ? "requires_payment_method" : "requires_confirmation",
      amountCapturableMinor: 0,
      amountCapturedMinor: 0,
      amountRefundedMinor: 0,
      paymentMethod: input.paymentMethod ?? null,
      providerPaymentId: null,
      attemptCount: 0,
      lastDeclineCode: null,
      version: 1,
      createdAt,
      updatedAt: createdAt,
    };
    const repo = yield* PaymentsRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* repo.insertIntent(intent);
        yield* audit({
          merchantId: caller.merchantId,
          actor: actorOf(caller),
          action: "payment_intent.created",
          subjectType: "payment_intent",
          subjectId: id,
          reason: "merchant request",
          data: { amount_minor: intent.amountMinor, currency: intent.currency, capture_method: intent.captureMethod },
        });
      }),
    );
    return intent;
  }).pipe(withSpan("Payments.createIntent"));
