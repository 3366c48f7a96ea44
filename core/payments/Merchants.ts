/**
 * Merchants and their API keys: creating a merchant with a first key (the CLI's
 * `merchant create`), and turning a bearer secret into a merchant principal. Secrets are
 * generated, hashed and compared behind the ApiKeys port; the core only passes them through.
 */
import { Effect } from "effect";
import { NotFound, Unauthorized, ValidationFailed } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { merchantScopes, type Merchant } from "./model/Merchant.js";
import { withSpan } from "../kernel/Span.js";
import { MerchantId } from "./model/Ids.js";

/** A new merchant and its first key; `apiKey` is shown once and never stored in clear. */
export interface CreatedMerchant {
  readonly merchant: Merchant;
  readonly keyId: string;
  readonly apiKey: string;
}

const checkScopes = (scopes: ReadonlyArray<string>): Effect.Effect<void, ValidationFailed> => {
  const unknown = scopes.filter((scope) => !(merchantScopes as ReadonlyArray<string>).includes(scope));
  return unknown.length === 0
    ? Effect.void
    : Effect.fail(new ValidationFailed({ errors: [{ path: "scopes", message: `unknown scopes: ${unknown.join(", ")}` }] }));
};

/** Creates a merchant with one API key holding `scopes`; `actor` is who asked (audited). */
export const createMerchant = (input: {
  readonly name: string;
  readonly scopes: ReadonlyArray<string>;
  readonly actor: string;
}): Effect.Effect<CreatedMerchant, ValidationFailed, PaymentsRepository | ApiKeys | Transactions | Ids> =>
  Effect.gen(function* () {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: "must be 1 to 200 characters" }] }));
    }
    yield* checkScopes(input.scopes);
    const repo = yield* PaymentsRepository;
    const keys = yield* ApiKeys;
    const merchant: Merchant = { id: MerchantId.make(yield* (yield* Ids).next), name, createdAt: yield* now };
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* repo.insertMerchant(merchant);
        const issued = yield* keys.issue({ keyId: yield* (yield* Ids).next, merchantId: merchant.id, scopes: [...new Set(input.scopes)], now: merchant.createdAt });
        yield* audit({
          merchantId: merchant.id,
          actor: input.actor,
          action: "merchant.created",
          subjectType: "merchant",
          subjectId: merchant.id,
          reason: "merchant onboarding",
          data: { key_id: issued.keyId, scopes: input.scopes },
        });
        return { merchant, keyId: issued.keyId, apiKey: issued.secret };
      }),
    );
  }).pipe(withSpan("Payments.createMerchant"));

/** The merchant principal of an API key secret; Unauthorized (invalid) for anything else. */
export const authenticateApiKey = (secret: string): Effect.Effect<Principal, Unauthorized, ApiKeys> =>
  Effect.gen(function* () {
    const verified = yield* (yield* ApiKeys).verify(secret, yield* now);
    if (verified === null) return yield* Effect.fail(new Unauthorized({ reason: "invalid", detail: "The API key is not valid." }));
    return { kind: "merchant" as const, merchantId: verified.merchantId, keyId: verified.keyId, scopes: verified.scopes };
  }).pipe(withSpan("Payments.authenticateApiKey"));

/** Issues another key for a merchant (rotation: issue, move clients, then revoke the old one). */
export const issueMerchantKey = (input: {
  readonly merchantId: MerchantId;
  readonly scopes: ReadonlyArray<string>;
  readonly actor: string;
  readonly expiresAt?: Date;
}): Effect.Effect<{ readonly keyId: string; readonly apiKey: string }, ValidationFailed | NotFound, PaymentsRepository | ApiKeys | Transactions | Ids> =>
  Effect.gen(function* () {
    yield* checkScopes(input.scopes);
    const repo = yield* PaymentsRepository;
    const keys = yield* ApiKeys;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        if ((yield* repo.findMerchant(input.merchantId)) === null) return yield* Effect.fail(new NotFound({ resource: "merchant", detail: "No such merchant." }));
        const issued = yield* keys.issue({
          keyId: yield* (yield* Ids).next,
          merchantId: input.merchantId,
          scopes: [...new Set(input.scopes)],
          now: at,
          ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
        });
        yield* audit({
          merchantId: input.merchantId,
          actor: input.actor,
          action: "api_key.issued",
          subjectType: "api_key",
          subjectId: issued.keyId,
          reason: "key issued",
          data: { scopes: input.scopes },
        });
        return { keyId: issued.keyId, apiKey: issued.secret };
      }),
    );
  }).pipe(withSpan("Payments.issueMerchantKey"));

/** Revokes one key of a merchant at once; NotFound when it is not a live key of that merchant. */
export const revokeMerchantKey = (input: {
  readonly merchantId: MerchantId;
  readonly keyId: string;
  readonly actor: string;
  readonly reason: string;
}): Effect.Effect<void, NotFound, PaymentsRepository | ApiKeys | Transactions | Ids> =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys;
    const at = yield* now;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const revoked = yield* keys.revoke({ merchantId: input.merchantId, keyId: input.keyId, now: at });
        if (!revoked) return yield* Effect.fail(new NotFound({ resource: "api_key", detail: "No such live API key." }));
        yield* audit({
          merchantId: input.merchantId,
          actor: input.actor,
          action: "api_key.revoked",
          subjectType: "api_key",
          subjectId: input.keyId,
          reason: input.reason,
        });
      }),
    );
  }).pipe(withSpan("Payments.revokeMerchantKey"));
