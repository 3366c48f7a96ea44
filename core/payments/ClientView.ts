/**
 * The restricted client-secret view of an intent (spec: "a restricted client secret gives a
 * limited read view"). Creating an intent through `createIntentWithClientSecret` mints its
 * client secret in the same transaction. The secret is a bearer credential of the customer
 * (`authenticateClientSecret`): it confirms that one intent and reads its client view, which
 * answers only non-sensitive fields; any other intent is NotFound (404) like an unknown one.
 */
import { Effect } from "effect";
import { NotFound, Unauthorized, type Forbidden, type ValidationFailed } from "../kernel/Errors.js";
import type { InvalidAmount } from "../kernel/Money.js";
import type { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ClientSecrets } from "../../ports/payments/ClientSecrets.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { createIntent, type CreateIntentInput } from "./CreateIntent.js";
import { clientViewOf, type IntentClientView, type PaymentIntent } from "./model/PaymentIntent.js";
import { withSpan } from "../kernel/Span.js";
import { loadOwnedIntent } from "./IntentRecords.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import { audit } from "./Audit.js";
import type { PaymentIntentId } from "./model/Ids.js";

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
  }).pipe(withSpan("Payments.createIntentWithClientSecret"));

/**
 * A new client secret for the caller's intent `intentId`, replacing the previous one: answered by
 * a replayed creation, whose stored answer holds no secret (secrets are never kept in clear).
 */
export const reissueClientSecret = (
  principal: Principal,
  intentId: PaymentIntentId,
): Effect.Effect<string, Forbidden | NotFound, PaymentsRepository | ClientSecrets | Transactions | Ids> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "payments:write");
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const intent = yield* loadOwnedIntent(caller, intentId, true);
        const secret = yield* (yield* ClientSecrets).reissue({ intentId: intent.id, merchantId: intent.merchantId });
        if (secret === null) return yield* Effect.fail(new NotFound({ resource: "payment_intent", detail: "No such payment intent." }));
        // A new customer credential, and the previous one revoked: audited (never the secret).
        yield* audit({
          merchantId: intent.merchantId,
          actor: actorOf(caller),
          action: "payment_intent.client_secret_reissued",
          subjectType: "payment_intent",
          subjectId: intent.id,
          reason: "replayed creation: a new client secret replaces the previous one",
        });
        return secret;
      }),
    );
  }).pipe(withSpan("Payments.reissueClientSecret"));

const notFound = new NotFound({ resource: "payment_intent", detail: "No such payment intent." });

/** A client secret's shape (`<intent id>_secret_<32 url-safe chars>`), recognised without I/O. */
export const looksLikeClientSecret = (token: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_secret_[A-Za-z0-9_-]{32}$/i.test(token);

/**
 * The customer principal of a client secret presented as a bearer credential: it may confirm
 * and read that one intent. Anything else is Unauthorized (invalid), never a hint of which part
 * was wrong.
 */
export const authenticateClientSecret = (secret: string): Effect.Effect<Principal, Unauthorized, PaymentsRepository | ClientSecrets> =>
  Effect.gen(function* () {
    const invalid = new Unauthorized({ reason: "invalid", detail: "The client secret is not valid." });
    if (!looksLikeClientSecret(secret)) return yield* Effect.fail(invalid);
    const intentId = secret.slice(0, secret.indexOf("_secret_"));
    if (!(yield* (yield* ClientSecrets).verify(intentId, secret))) return yield* Effect.fail(invalid);
    const intent = yield* (yield* PaymentsRepository).findIntent(intentId);
    if (intent === null) return yield* Effect.fail(invalid);
    return { kind: "client" as const, intentId: intent.id, merchantId: intent.merchantId };
  }).pipe(withSpan("Payments.authenticateClientSecret"));

/** The client view of `intentId` for the customer holding its client secret; NotFound for any other intent. */
export const getClientView = (
  principal: Principal & { readonly kind: "client" },
  intentId: PaymentIntentId,
): Effect.Effect<IntentClientView, NotFound, PaymentsRepository> =>
  Effect.gen(function* () {
    if (principal.intentId !== intentId) return yield* Effect.fail(notFound);
    const intent = yield* (yield* PaymentsRepository).findIntent(intentId);
    if (intent === null) return yield* Effect.fail(notFound);
    return clientViewOf(intent);
  }).pipe(withSpan("Payments.getClientView"));
