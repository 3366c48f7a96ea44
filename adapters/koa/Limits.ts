/**
 * Every bound of the HTTP host in one place (docs/conventions.md, Limits). Hosts pass a partial
 * override to `createKoaApp`; anything not overridden keeps the documented default below.
 */

/** The bounds the HTTP host enforces. */
export interface Limits {
  /** Largest accepted JSON request body, in bytes. Default 1 MiB; larger bodies answer 413. */
  readonly jsonBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body. Default 32; deeper bodies answer 400 `malformed_json`. */
  readonly jsonBodyDepth: number;
  /** Page size when a list request gives no `limit`. Default 50. */
  readonly listDefault: number;
  /** Largest `limit` a list request may ask for. Default 200; larger answers 400 `invalid_limit`. */
  readonly listMax: number;
  /** Requests one principal (or one client IP when anonymous) may make per window. Default 300. */
  readonly rateLimitPoints: number;
  /**
   * Requests one client IP may make per window, whoever the callers behind it are (spec: rate
   * limits apply by credential, merchant and IP). Default 3,000: ten callers' worth, so a shared
   * office or NAT address is not held to one caller's budget.
   */
  readonly rateLimitIpPoints: number;
  /** Length of the rate-limit window, in seconds. Default 10. */
  readonly rateLimitWindowSeconds: number;
  /**
   * Failed authentications (401: a bad, expired or revoked credential) one client IP may cause per
   * `failedAuthenticationWindowSeconds`; past it, every request from that IP carrying a credential
   * answers 429 until the window passes. Default 60.
   */
  readonly failedAuthenticationPoints: number;
  /** Length of the failed-authentication window, in seconds. Default 300. */
  readonly failedAuthenticationWindowSeconds: number;
  /**
   * Longest accepted `Idempotency-Key`, in characters. Default 255, the same bound the kernel
   * (core/kernel/Idempotency.ts) enforces; a smaller value here tightens it for HTTP callers.
   */
  readonly idempotencyKeyMaxLength: number;
  /** Longest a client may take to send a whole request before the server drops it. Default 30 s. */
  readonly requestTimeoutMs: number;
  /** Longest graceful shutdown waits for in-flight requests before cutting connections. Default 10 s. */
  readonly shutdownTimeoutMs: number;
  /**
   * How long shutdown keeps serving before it drains, while /readyz answers 503 `draining`, so a
   * load balancer stops routing here first (SHUTDOWN_DELAY_MS; set it above the balancer's health
   * check interval times its failure threshold). Default 0: drain at once.
   */
  readonly shutdownDelayMs: number;
}

/** The documented defaults. */
export const defaultLimits: Limits = {
  jsonBodyBytes: 1024 * 1024,
  jsonBodyDepth: 32,
  listDefault: 50,
  listMax: 200,
  rateLimitPoints: 300,
  rateLimitIpPoints: 3_000,
  rateLimitWindowSeconds: 10,
  failedAuthenticationPoints: 60,
  failedAuthenticationWindowSeconds: 300,
  idempotencyKeyMaxLength: 255,
  requestTimeoutMs: 30_000,
  shutdownTimeoutMs: 10_000,
  shutdownDelayMs: 0,
};

/** The bounds that may be 0 (a delay nobody needs); every other bound must be positive. */
const mayBeZero: ReadonlySet<string> = new Set<keyof Limits>(["shutdownDelayMs"]);

/** The defaults with a host's overrides applied; rejects bounds that make no sense. */
export const resolveLimits = (overrides: Partial<Limits> = {}): Limits => {
  const limits: Limits = { ...defaultLimits, ...stripUndefined(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    // A zero or fractional bound would silently disable a protection; fail at startup instead.
    if (!Number.isInteger(value) || value < 0 || (value === 0 && !mayBeZero.has(name))) {
      throw new Error(`Limits.${name} must be a ${mayBeZero.has(name) ? "non-negative" : "positive"} integer, got ${value}`);
    }
  }
  if (limits.listDefault > limits.listMax) throw new Error("Limits.listDefault must not exceed Limits.listMax");
  return limits;
};

const stripUndefined = <A extends object>(o: A): Partial<A> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<A>;
