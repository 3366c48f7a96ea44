/**
 * The provider's record of a payment (looked up by our attempt reference) read as the answer it
 * would have given to the authorization, so reconciliation and a continued confirm apply it
 * exactly as a live answer. A voided payment answers nothing: there is no authorization to apply.
 */
import type { AuthorizeResult, ProviderPayment } from "../../ports/payments/PaymentProvider.js";

/** The provider's record as an authorization answer, or null when it is no such answer (voided). */
export const answerOfProviderPayment = (payment: ProviderPayment): AuthorizeResult | null => {
  switch (payment.status) {
    case "captured":
      return { _tag: "Authorized", providerPaymentId: payment.providerPaymentId ?? "", capturedMinor: payment.capturedMinor };
    case "authorized":
      return { _tag: "Authorized", providerPaymentId: payment.providerPaymentId ?? "", capturedMinor: 0 };
    case "requires_action":
      return { _tag: "RequiresAction", providerPaymentId: payment.providerPaymentId ?? "" };
    case "declined":
      return { _tag: "Declined", declineCode: payment.declineCode ?? "declined" };
    case "voided":
      return null;
  }
};
