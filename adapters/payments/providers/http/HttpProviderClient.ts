/**
 * The one HTTP call path to the payment provider's API: bearer API key, JSON in, a per-call
 * timeout (AbortSignal, also aborted when the calling fiber is interrupted). Anything that is
 * not a complete answer — a network error, a timeout, an unreadable body — is
 * ProviderOutcomeUnknown: the provider may or may not have acted, and we never guess. The API
 * key, bodies and payment tokens never enter an error (only the operation and the status).
 */
import { Effect } from "effect";
import { ProviderOutcomeUnknown } from "../../../../core/payments/Errors.js";
import { fetchWithin, isFetchTimeout } from "../../../http/fetchWithin.js";

/** Where the provider is and how we authenticate. */
export interface HttpProviderOptions {
  /** Base URL of the provider API, e.g. http://127.0.0.1:4010 (PAYMENT_PROVIDER_URL). */
  readonly baseUrl: string;
  /** The provider API key (PAYMENT_PROVIDER_API_KEY); sent only as a bearer header. */
  readonly apiKey: string;
  /** Per-call timeout in milliseconds (PAYMENT_PROVIDER_TIMEOUT_MS, default 10 000). */
  readonly timeoutMs?: number;
}

/** The default per-call timeout. */
export const defaultProviderTimeoutMs = 10_000;

/** A complete answer: status and body text. */
export interface ProviderAnswer {
  readonly status: number;
  readonly text: string;
}

/** The answer's JSON object, or null when the body is not one. */
export const jsonOf = (answer: ProviderAnswer): Record<string, unknown> | null => {
  try {
    const json = JSON.parse(answer.text) as unknown;
    return json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** An outcome we cannot know, for `operation`, saying only why in general terms. */
export const outcomeUnknown = (operation: string, detail: string): ProviderOutcomeUnknown => new ProviderOutcomeUnknown({ operation, detail });

/** A sender of requests to the provider's API. */
export type ProviderRequest = (
  operation: string,
  method: "GET" | "POST",
  path: string,
  body?: Record<string, unknown>,
) => Effect.Effect<ProviderAnswer, ProviderOutcomeUnknown>;

/** A request sender bound to `options`. */
export const makeProviderRequest = (options: HttpProviderOptions): ProviderRequest => {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? defaultProviderTimeoutMs;
  const authorization = `Bearer ${options.apiKey}`;
  return (operation, method, path, body) =>
    Effect.tryPromise({
      try: (interrupted) =>
        fetchWithin(
          `${base}${path}`,
          {
            method,
            headers: {
              Authorization: authorization,
              Accept: "application/json, text/csv",
              ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          },
          timeoutMs,
          interrupted,
        ),
      catch: (error) =>
        outcomeUnknown(operation, isFetchTimeout(error) ? "The payment provider did not answer in time." : "The payment provider could not be reached."),
    }).pipe(
      Effect.flatMap((answer) =>
        answer.status >= 500
          ? Effect.fail(outcomeUnknown(operation, `The payment provider answered ${answer.status}.`))
          : Effect.succeed(answer),
      ),
    );
};
