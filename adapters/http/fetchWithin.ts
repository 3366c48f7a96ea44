/**
 * One HTTP exchange with an outside service under a deadline: the timeout covers the whole
 * exchange, body included (a half-read answer is no answer), and an interrupted Effect aborts it.
 * An explicit timer, not AbortSignal.timeout inside AbortSignal.any: on Node 20 the composed
 * signal can lose a timeout signal to garbage collection and never fire. Used by the HTTP
 * adapters of outside services (payment provider, carrier).
 */

/** What the exchange answered: the status and the whole body as text. */
export interface FetchedAnswer {
  readonly status: number;
  readonly text: string;
}

/** True when `error` is the deadline of {@link fetchWithin} (or another timeout abort). */
export const isFetchTimeout = (error: unknown): boolean =>
  error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

/**
 * Sends `init` to `url` and reads the whole answer within `timeoutMs`; `interrupted` (the signal
 * Effect.tryPromise passes) aborts it too. Rejects with the fetch error, or a `TimeoutError`.
 */
export const fetchWithin = async (url: string, init: RequestInit, timeoutMs: number, interrupted: AbortSignal): Promise<FetchedAnswer> => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
  const onInterrupt = (): void => controller.abort(interrupted.reason);
  interrupted.addEventListener("abort", onInterrupt, { once: true });
  try {
    const response = await fetch(url, { ...init, redirect: "error", signal: controller.signal });
    return { status: response.status, text: await response.text() };
  } finally {
    clearTimeout(timer);
    interrupted.removeEventListener("abort", onInterrupt);
  }
};
