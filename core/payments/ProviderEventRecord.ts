/**
 * What the webhook inbox keeps of a provider event: the fields the core read (the payment or refund
 * fields, a dispute's object), never the body as received, which may carry the customer's billing
 * details or anything else a provider adds.
 */
import { Either, Schema } from "effect";
import { disputeEventFromProvider } from "./DisputeProjection.js";
import { ProviderDisputeEvent } from "./model/Dispute.js";
import { ProviderEvent, type ProviderEvent as ProviderEventType } from "./model/ProviderEvent.js";

/** The payload the inbox row stores for `event`. */
export const storedPayloadOf = (event: ProviderEventType): Readonly<Record<string, unknown>> => {
  const dispute = event.data.kind === "other" ? disputeEventFromProvider(event) : null;
  return { type: event.type, data: event.data, ...(dispute === null ? {} : { dispute: dispute.dispute }) };
};

// The shape storedPayloadOf writes, and nothing more.
const StoredPayload = Schema.Struct({
  type: Schema.String,
  data: ProviderEvent.fields.data,
  dispute: Schema.optional(ProviderDisputeEvent.fields.dispute),
});

/** Whether `payload` is already what storedPayloadOf writes (no field besides those). */
export const isStoredPayload = (payload: unknown): boolean =>
  Either.isRight(Schema.decodeUnknownEither(StoredPayload, { onExcessProperty: "error" })(payload));
