/** Query: read one of the caller's intents (GET /v1/payment-intents/:id). */
import { Effect } from "effect";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { loadOwnedIntent } from "./IntentRecords.js";
import { requireMerchant } from "./MerchantAccess.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { withSpan } from "../kernel/Span.js";
import type { PaymentIntentId } from "./model/Ids.js";

/** The caller's intent; another merchant's answers NotFound like an unknown id. */
export const getIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
): Effect.Effect<PaymentIntent, Forbidden | NotFound, PaymentsRepository> =>
  Effect.flatMap(requireMerchant(principal), (caller) => loadOwnedIntent(caller, intentId, false)).pipe(
    withSpan("Payments.getIntent"),
  );
