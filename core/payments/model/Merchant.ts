/** A merchant: the tenant of intents, refunds and ledger entries; and the scopes of its API keys. */
import { Schema } from "effect";
import { MerchantId } from "./Ids.js";

/** A merchant record (table payment_merchants). */
export const Merchant = Schema.Struct({
  id: MerchantId,
  name: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Merchant = typeof Merchant.Type;

/** The scopes a merchant API key may carry. */
export const merchantScopes = ["payments:write", "refunds:write", "ledger:read", "keys:write", "webhooks:write", "reconciliation:write", "risk:read", "risk:write"] as const;
/** One merchant API key scope. */
export const MerchantScope = Schema.Literal(...merchantScopes);
export type MerchantScope = typeof MerchantScope.Type;
