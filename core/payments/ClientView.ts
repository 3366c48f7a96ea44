/**
 * The restricted client-secret view of an intent (spec: "a restricted client secret gives a
 * limited read view"). Creating an intent through `createIntentWithClientSecret` mints its
 * client secret in the same transaction; `getClientView` answers only non-sensitive fields and
 * treats a wrong secret exactly like an unknown intent (404).
 */
import { Effect } from "effect";
import { NotFound, type Forbidden, type ValidationFailed } from "../kernel/Errors.js";
import type { InvalidAmount } from "../kernel/Money.js";
import type { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ClientSecrets } from "../../ports/payments/ClientSecrets.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "./Audit.js";
import { createIntent, type CreateIntentInput } from "./CreateIntent.js";
import type { IntentStatus } from "./IntentStatus.js";
import type { CaptureMethod, PaymentIntent } from "./PaymentIntent.js";

/** What a customer's browser may see of an intent: no merchant internals, provider refs, token or ledger. */
export interface IntentClientView {
  readonly id: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly captureMethod: CaptureMethod;
  readonly status: IntentStatus;
  readonly lastDeclineCode: string | null;
  readonly createdAt: Date;
}

/** Creates an intent (as createIntent) and mints its client secret, atomically. */
export const createIntentWithClientSecret = (
  principal: Principal,
  input: CreateIntentInput,
): Effect.Effect<
  { readonly intent: PaymentIntent; readonly clientSecret: string },
  Forbidden | ValidationFailed | InvalidAmount,
  PaymentsRepository | ClientSecrets | Transactions | Ids
> =>
  Effect.gen(function* () {
    const secrets = yield* ClientSecrets;
    // createIntent's own transaction joins this one, so the intent never exists without its secret.
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const intent = yield* createIntent(principal, input);
        const clientSecret = yield* secrets.issue({ intentId: intent.id, merchantId: intent.merchantId, now: yield* now });
        return { intent, clientSecret };
      }),
    );
  }).pipe(Effect.withSpan("Payments.createIntentWithClientSecret"));

const notFound = new NotFound({ resource: "payment_intent", detail: "No such payment intent." });

/** The client view of `intentId` when `secret` is its client secret; NotFound otherwise. */
export const getClientView = (
  intentId: string,
  secret: string | undefined,
): Effect.Effect<IntentClientView, NotFound, PaymentsRepository | ClientSecrets> =>
  Effect.gen(function* () {
    if (secret === undefined || secret.length === 0 || secret.length > 200) return yield* Effect.fail(notFound);
    if (!(yield* (yield* ClientSecrets).verify(intentId, secret))) return yield* Effect.fail(notFound);
    const intent = yield* (yield* PaymentsRepository).findIntent(intentId);
    if (intent === null) return yield* Effect.fail(notFound);
    return {
      id: intent.id,
      amountMinor: intent.amountMinor,
      currency: intent.currency,
      captureMethod: intent.captureMethod,
      status: intent.status,
      lastDeclineCode: intent.lastDeclineCode,
      createdAt: intent.createdAt,
    };
  }).pipe(Effect.withSpan("Payments.getClientView"));
