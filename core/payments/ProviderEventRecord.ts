/**
 * What the webhook inbox keeps of a provider event: the fields the core read (the payment or refund
 * fields, a dispute's object), never the body as received, which may carry the customer's billing
 * details or anything else a provider adds.
 */
import { disputeEventFromProvider } from "./DisputeProjection.js";
import type { ProviderEvent } from "./model/ProviderEvent.js";

/** The payload the inbox row stores for `event`. */
export const storedPayloadOf = (event: ProviderEvent): Readonly<Record<string, unknown>> => {
  const dispute = event.data.kind === "other" ? disputeEventFromProvider(event) : null;
  return { type: event.type, data: event.data, ...(dispute === null ? {} : { dispute: dispute.dispute }) };
};
