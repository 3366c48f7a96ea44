/**
 * A provider payment method token (spec, Payment service: "Tokens are provider tokens. Raw card
 * numbers and CVV are never stored"): `pm_` and 1 to 64 letters, digits or underscores. Card entry
 * happens in the provider's hosted fields; anything else is refused before it is stored or sent,
 * and the message never repeats the value (it may be a card number).
 */
import { Schema } from "effect";

/** True when `value` has the shape of a provider payment method token. */
export const isPaymentMethodToken = (value: string): boolean => /^pm_[A-Za-z0-9_]{1,64}$/.test(value);

/** What a refusal says (never the value). */
export const paymentMethodTokenMessage = "must be a provider payment method token (pm_...)";

/** A provider payment method token; the error message never repeats the value sent. */
export const PaymentMethodToken = Schema.String.pipe(Schema.filter((s) => isPaymentMethodToken(s) || paymentMethodTokenMessage));
