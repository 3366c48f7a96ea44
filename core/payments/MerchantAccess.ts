/**
 * Object-level merchant authorization (spec rules 4 and 8): only a merchant credential acts
 * here (and, for confirm, the customer holding the intent's client secret); a missing scope is 403; another merchant's object is 404 exactly like an unknown one,
 * so a merchant never learns that someone else's object exists.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { MerchantScope } from "./model/Merchant.js";
import { MerchantId } from "./model/Ids.js";

/** A merchant caller, as the commands use it (the principal's ids, branded here once for every command). */
export interface MerchantCaller {
  readonly merchantId: MerchantId;
  readonly keyId: string;
  readonly scopes: ReadonlyArray<string>;
  /** Set when a customer acts through the intent's client secret (confirm only). */
  readonly customerOfIntent?: string;
}

/** The caller as a merchant holding `scope` (when given); anyone else is Forbidden. */
export const requireMerchant = (principal: Principal, scope?: MerchantScope): Effect.Effect<MerchantCaller, Forbidden> => {
  if (principal.kind !== "merchant") {
    return Effect.fail(new Forbidden({ detail: "This endpoint requires a merchant API key." }));
  }
  if (scope !== undefined && !principal.scopes.includes(scope)) {
    return Effect.fail(new Forbidden({ detail: `This API key lacks the ${scope} scope.` }));
  }
  return Effect.succeed({ merchantId: MerchantId.make(principal.merchantId), keyId: principal.keyId, scopes: principal.scopes });
};

/**
 * Who may confirm `intentId` (spec: "owning merchant or customer secret boundary"): a merchant
 * key with payments:write, or the customer holding that intent's client secret. A client secret
 * of another intent answers NotFound, exactly like an unknown intent.
 */
export const requireConfirmer = (principal: Principal, intentId: string): Effect.Effect<MerchantCaller, Forbidden | NotFound> => {
  if (principal.kind !== "client") return requireMerchant(principal, "payments:write");
  if (principal.intentId !== intentId) return Effect.fail(new NotFound({ resource: "payment_intent", detail: "No such payment intent." }));
  return Effect.succeed({ merchantId: MerchantId.make(principal.merchantId), keyId: "client_secret", scopes: [], customerOfIntent: principal.intentId });
};

/** `found` when it belongs to the caller; NotFound when it is missing or someone else's. */
export const ownedBy = <T extends { readonly merchantId: string }>(
  caller: MerchantCaller,
  resource: string,
  found: T | null,
): Effect.Effect<T, NotFound> =>
  found !== null && found.merchantId === caller.merchantId
    ? Effect.succeed(found)
    : Effect.fail(new NotFound({ resource, detail: `No such ${resource.replace(/_/g, " ")}.` }));

/** The audit actor of a merchant caller: merchant and key, never the secret. */
export const actorOf = (caller: MerchantCaller): string =>
  caller.customerOfIntent !== undefined
    ? `customer:payment_intent:${caller.customerOfIntent}`
    : `merchant:${caller.merchantId}/key:${caller.keyId}`;
