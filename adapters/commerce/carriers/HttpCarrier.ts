/**
 * The CarrierTracking port over a carrier's HTTP API (JSON over fetch):
 * `GET <base URL>/v1/tracking/<carrier>/<tracking number>` with the API key in `X-Api-Key`,
 * answered `200 {status, occurred_at}` (status one of in_transit, out_for_delivery, delivered,
 * exception) or 404 for a number the carrier does not know (null). Anything else — a network
 * error, the per-call timeout, another status, an unreadable body — is CarrierUnavailable, and
 * the poll asks again next time. The API key never enters an error or a log line.
 */
import { Effect, Schema } from "effect";
import { fetchWithin, isFetchTimeout } from "../../http/fetchWithin.js";
import { CarrierUnavailable, type CarrierTracking } from "../../../ports/commerce/Carriers.js";

/** Where the carrier's API is and how we authenticate (COMMERCE_CARRIER_URL, COMMERCE_CARRIER_API_KEY). */
export interface HttpCarrierOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Per-call timeout in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
}

/** The default per-call timeout. */
export const defaultCarrierTimeoutMs = 10_000;

/** The header carrying the API key. */
export const carrierApiKeyHeader = "X-Api-Key";

const TrackingAnswer = Schema.Struct({
  status: Schema.Literal("in_transit", "out_for_delivery", "delivered", "exception"),
  occurred_at: Schema.Date,
});
const decodeAnswer = Schema.decodeUnknown(Schema.parseJson(TrackingAnswer));

/** Builds the HTTP carrier. */
export const makeHttpCarrier = (options: HttpCarrierOptions): CarrierTracking => {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? defaultCarrierTimeoutMs;
  const unavailable = (detail: string) => new CarrierUnavailable({ detail });
  return {
    track: (carrier, trackingNumber) =>
      Effect.gen(function* () {
        const answer = yield* Effect.tryPromise({
          try: (interrupted) =>
            fetchWithin(
              `${base}/v1/tracking/${encodeURIComponent(carrier)}/${encodeURIComponent(trackingNumber)}`,
              { method: "GET", headers: { [carrierApiKeyHeader]: options.apiKey, Accept: "application/json" } },
              timeoutMs,
              interrupted,
            ),
          catch: (error) => unavailable(isFetchTimeout(error) ? `The carrier did not answer within ${timeoutMs} ms.` : "The carrier could not be reached."),
        });
        if (answer.status === 404) return null;
        if (answer.status !== 200) return yield* Effect.fail(unavailable(`The carrier answered ${answer.status}.`));
        const body = yield* decodeAnswer(answer.text).pipe(Effect.mapError(() => unavailable("The carrier's answer is not a tracking status.")));
        return { status: body.status, occurredAt: body.occurred_at };
      }),
  };
};
