/**
 * Reference server configuration, read from the environment with documented defaults
 * (README "Configuration" and "Operations"). Nothing else in the project reads process.env.
 *
 * Every variable is validated here, before anything starts: a bad value is a `ConfigError`
 * whose lines each name the variable, what is wrong with the value and the expected form
 * (secrets are never echoed; URLs are shown with their credentials redacted). The CLI prints
 * those lines without a stack trace and exits 2.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import path from "node:path";
import { publicKeyAlgorithm, type TokenVerification } from "../adapters/koa/Authentication.js";
import { redactUrl } from "../adapters/observability/Redact.js";

/** The development JWT secret used when AUTH_JWT_SECRET is unset; never use it in production. */
export const DEVELOPMENT_JWT_SECRET = "domainkit-development-secret-change-me-0123456789";

/** The development blob grant secret used when BLOB_SIGNING_SECRET is unset; never use it in production. */
export const DEVELOPMENT_BLOB_SECRET = "domainkit-development-blob-secret-change-me-0123";

export interface Config {
  /** HTTP port (PORT, default 3000). */
  readonly port: number;
  /** Interface to bind (HOST, default 127.0.0.1). */
  readonly host: string;
  /**
   * Reverse proxies in front of the server that append to `X-Forwarded-For` (TRUST_PROXY, default
   * 0: the client is the TCP peer). Behind N proxies the client address is the Nth entry from the
   * right; the per-IP budgets (failed authentications, the request limit, checkout risk) count it.
   */
  readonly trustedProxies: number;
  /** Folder for the SQLite file and the local blob store (DATA_DIR, default ./.data). */
  readonly dataDir: string;
  /** Postgres connection string; SQLite under dataDir when absent (DATABASE_URL). */
  readonly databaseUrl: string | undefined;
  /** Connections this process opens to Postgres at most (DATABASE_POOL_MAX, default 10). */
  readonly databasePoolMax: number;
  /**
   * How long the server keeps serving after SIGTERM, with /readyz answering 503 `draining`, before
   * it drains and closes (SHUTDOWN_DELAY_MS, default 0): the time a load balancer needs to notice.
   */
  readonly shutdownDelayMs: number;
  /** HS256 secret for bearer tokens (AUTH_JWT_SECRET). */
  readonly jwtSecret: string;
  /** True when jwtSecret is the documented development default. */
  readonly usingDevelopmentSecret: boolean;
  /**
   * An identity provider's public key (AUTH_JWT_PUBLIC_KEY, PEM): its RS256/PS256/ES256/384/512 or
   * EdDSA tokens are accepted. HS256 tokens stay accepted only with AUTH_JWT_SECRET set.
   */
  readonly jwtPublicKey: KeyObject | undefined;
  /** The identity provider's key set (AUTH_JWT_JWKS_URL), instead of one public key: keys rotate without a restart. */
  readonly jwtJwksUrl: URL | undefined;
  /** The `iss` every token must carry (AUTH_JWT_ISSUER); unchecked when unset. */
  readonly jwtIssuer: string | undefined;
  /** The `aud` every token must carry (AUTH_JWT_AUDIENCE); unchecked when unset, required in production with a public key. */
  readonly jwtAudience: string | undefined;
  /** Run the outbox relay and job runner inside the server process (WORKER_IN_PROCESS, default true). */
  readonly workerInProcess: boolean;
  /** Apply pending migrations when the server starts (MIGRATE_ON_START, default true). */
  readonly migrateOnStart: boolean;
  /** pino level (LOG_LEVEL, default info). */
  readonly logLevel: string;
  /** User ids of the platform operators (PLATFORM_OPERATORS, comma-separated): payments replay dual control. */
  readonly platformOperators: ReadonlyArray<string>;
  /** Quota of a new workspace drive in bytes (FILES_DEFAULT_QUOTA_BYTES, default 10737418240 = 10 GiB; 0 to 2^53-1). */
  readonly filesDefaultQuotaBytes: number;
  /** User ids of file storage's security operators (FILES_SECURITY_OPERATORS, comma-separated): quarantine review and audited samples. */
  readonly filesSecurityOperators: ReadonlyArray<string>;
  /** Days a finished workspace export is kept before its object is deleted (PROJECTS_EXPORT_RETENTION_DAYS, default 7; 1 to 3650). */
  readonly projectsExportRetentionDays: number;
  /** Days an infected or scan_failed attachment's bytes are kept after the verdict (PROJECTS_QUARANTINE_RETENTION_DAYS, default 30; 1 to 3650). */
  readonly projectsQuarantineRetentionDays: number;
  /** Days a trashed file or folder is kept before the purge deletes it, unless under legal hold (FILES_TRASH_RETENTION_DAYS, default 30; 1 to 3650). */
  readonly filesTrashRetentionDays: number;
  /** Days sync change records are kept; older cursors answer 410 cursor_expired (FILES_CHANGE_RETENTION_DAYS, default 90; 1 to 3650). */
  readonly filesChangeRetentionDays: number;
  /** Days a finished audit export is kept before its object is deleted (FILES_AUDIT_EXPORT_RETENTION_DAYS, default 7; 1 to 3650). */
  readonly filesAuditExportRetentionDays: number;
  /**
   * Secrets the payment provider signs its webhooks with (PROVIDER_WEBHOOK_SECRET, comma-separated
   * during rotation). None: every provider webhook is refused.
   */
  readonly providerWebhookSecrets: ReadonlyArray<string>;
  /** Folder of the local blob store (BLOB_DIR, default DATA_DIR/blobs). */
  readonly blobDir: string;
  /** HMAC secret of upload and download grants (BLOB_SIGNING_SECRET, at least 32 characters). */
  readonly blobSigningSecret: string;
  /** True when blobSigningSecret is the documented development default. */
  readonly usingDevelopmentBlobSecret: boolean;
  /** Mention e-mail: SMTP when SMTP_URL is set (sender MAIL_FROM), else files in MAIL_DIR (default DATA_DIR/mail). */
  readonly mail: { readonly smtpUrl: string | undefined; readonly from: string; readonly folder: string };
  /** Absolute base of grant URLs, e.g. https://api.example.com (BLOB_PUBLIC_URL); root-relative when unset. */
  readonly blobPublicUrl: string | undefined;
  /** The S3-compatible object store (OBJECT_STORE_URL and the other OBJECT_STORE_* variables); unset: the local blob store. */
  readonly objectStore: ObjectStoreConfig | undefined;
  /**
   * The payment provider's HTTP API (PAYMENT_PROVIDER_URL, e.g. `domainkit sandbox` at
   * http://127.0.0.1:4010); unset: the in-process sandbox (development and tests only).
   */
  readonly paymentProviderUrl: string | undefined;
  /** The key we present to the provider (PAYMENT_PROVIDER_API_KEY); required with PAYMENT_PROVIDER_URL. Never logged. */
  readonly paymentProviderApiKey: string;
  /** Per-call provider timeout in milliseconds (PAYMENT_PROVIDER_TIMEOUT_MS, default 10000); a timeout is an unknown outcome. */
  readonly paymentProviderTimeoutMs: number;
  /** How long start-up waits for an unreachable database, in seconds (STARTUP_DB_WAIT_SECONDS, default 30). */
  readonly startupDbWaitSeconds: number;
  /** Log lines as readable text or JSON (LOG_FORMAT: auto, pretty or json; auto = pretty on a terminal outside production). */
  readonly logFormat: "auto" | "pretty" | "json";
  /** NODE_ENV === "production". */
  readonly production: boolean;
  /** GET /metrics on the server's port (METRICS_ENABLED, default true). */
  readonly metricsEnabled: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <token>` (METRICS_TOKEN). Never logged. */
  readonly metricsToken: string | undefined;
  /** OTLP/HTTP endpoint that Effect spans are exported to (OTEL_EXPORTER_OTLP_ENDPOINT); no export when unset. */
  readonly otlpEndpoint: string | undefined;
  /** service.name of exported spans (OTEL_SERVICE_NAME, default domainkit). */
  readonly serviceName: string;
  /** The food delivery module's settings (DELIVERY_*; documented defaults in docs/decisions.md). */
  readonly delivery: DeliveryConfig;
  /** The e-commerce module's secrets (COMMERCE_*). */
  readonly commerce: CommerceConfig;
}

/** COMMERCE_* variables (docs/decisions.md, E-commerce slice 2). */
export interface CommerceConfig {
  /**
   * Keys sealing order addresses and e-mails at rest (COMMERCE_SEALING_KEYS: `id:base64` pairs of
   * 32-byte keys, comma-separated, the first current; older ones still open what they sealed).
   * Undefined when unset: the module's development key. Never logged.
   */
  readonly sealingKeys: { readonly currentKeyId: string; readonly keys: Readonly<Record<string, Buffer>> } | undefined;
  /** Secrets carrier webhooks are signed with (COMMERCE_CARRIER_WEBHOOK_SECRET, comma-separated while rotating); none: every delivery is refused. Never logged. */
  readonly carrierWebhookSecrets: ReadonlyArray<string>;
  /**
   * The carrier's tracking API the hourly poll asks (COMMERCE_CARRIER_URL, an http(s) URL;
   * COMMERCE_CARRIER_API_KEY required with it, never logged; COMMERCE_CARRIER_TIMEOUT_MS per call,
   * default 10000); unset: the sandbox carrier.
   */
  readonly carrierApi: { readonly baseUrl: string; readonly apiKey: string; readonly timeoutMs: number } | undefined;
}

/** DELIVERY_* variables (docs/decisions.md, Food delivery). */
export interface DeliveryConfig {
  readonly settings: {
    /** Offers sent at once per dispatch round (DELIVERY_OFFER_FANOUT, default 3). */
    readonly offerFanout: number;
    /** Offer lifetime in seconds (DELIVERY_OFFER_TTL_SECONDS, default 30). */
    readonly offerTtlSeconds: number;
    /** How far from the pickup a courier may be to be offered a delivery, in metres (DELIVERY_DISPATCH_RADIUS_M, default 20000). */
    readonly dispatchRadiusM: number;
    /** Restaurant acceptance deadline in seconds (DELIVERY_ACCEPT_DEADLINE_SECONDS, default 300). */
    readonly acceptDeadlineSeconds: number;
    /** Quote lifetime in seconds (DELIVERY_QUOTE_TTL_SECONDS, default 300). */
    readonly quoteTtlSeconds: number;
    /** How long precise courier positions are kept (DELIVERY_LOCATION_RETENTION_SECONDS, default 3600). */
    readonly locationRetentionSeconds: number;
    /** How recent a dispatcher's sign-in must be for a reassignment (DELIVERY_STEP_UP_SECONDS, default 300). */
    readonly stepUpMaxAgeSeconds: number;
    /** How long chat messages are kept after their delivery ended (DELIVERY_CHAT_RETENTION_SECONDS, default 86400). */
    readonly chatRetentionSeconds: number;
  };
  /** The AES-256 key sealing courier positions at rest (DELIVERY_LOCATION_KEY, 64 hex digits); a development key when unset. Never logged. */
  readonly locationKey: Uint8Array;
  /** True when DELIVERY_LOCATION_KEY is unset and the development key is used. */
  readonly usingDevelopmentLocationKey: boolean;
  /** Dispatchers and their regions (DELIVERY_DISPATCHERS=`<user uuid>=<minLat>:<minLng>:<maxLat>:<maxLng>`, comma-separated). */
  readonly dispatchers: ReadonlyArray<{ readonly userId: string; readonly region: { readonly minLat: number; readonly minLng: number; readonly maxLat: number; readonly maxLng: number } }>;
}

/** The development location key (DELIVERY_LOCATION_KEY unset): never for production data. */
export const DEVELOPMENT_LOCATION_KEY = "646f6d61696e6b69742d646576656c6f706d656e742d6c6f636174696f6e2121";

/** One or more invalid configuration variables; `lines` holds one line per problem. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly lines: ReadonlyArray<string>) {
    super(lines.join("\n"));
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const truthy = ["1", "true", "yes", "on"];
const falsy = ["0", "false", "no", "off"];
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads variables and collects every problem, so one start shows them all. */
class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  /** The value, or undefined when unset or empty. */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === "" ? undefined : value;
  }

  /** Records one line: `NAME="value": what is wrong; expected <form>`. */
  problem(name: string, what: string, expected: string, secret = false): void {
    const value = this.env[name];
    const shown = value === undefined ? " (unset)" : `=${Reader.shown(value, secret)}`;
    this.problems.push(`${name}${shown}: ${what}; expected ${expected}`);
  }

  /** `shown` quotes a value for a message: secrets are never shown, URLs lose their credentials. */
  static shown(value: string, secret = false): string {
    if (secret) return `<${value.length} characters, not shown>`;
    return JSON.stringify(redactUrl(value).slice(0, 120));
  }

  integer(name: string, fallback: number, min: number, max: number, expected: string): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problem(name, Number.isSafeInteger(parsed) ? "out of range" : "not a whole number", expected);
      return fallback;
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const lower = value.trim().toLowerCase();
    if (truthy.includes(lower)) return true;
    if (falsy.includes(lower)) return false;
    this.problem(name, "not a boolean", "true or false (also 1/0, yes/no, on/off)");
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: ReadonlyArray<T>): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const lower = value.trim().toLowerCase() as T;
    if (allowed.includes(lower)) return lower;
    this.problem(name, "not a known value", `one of ${allowed.join(", ")}`);
    return fallback;
  }

  url(name: string, protocols: ReadonlyArray<string>, expected: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !protocols.includes(parsed.protocol) || parsed.hostname === "") {
      const what =
        parsed === undefined ? "not a URL" : !protocols.includes(parsed.protocol) ? `the scheme ${parsed.protocol} is not supported` : "the URL names no host";
      this.problem(name, what, expected);
      return undefined;
    }
    return value;
  }

  secret(name: string, minLength: number): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (value.length < minLength || value.trim() !== value) {
      const what = value.trim() !== value ? "has leading or trailing whitespace" : "too short";
      this.problem(name, what, `a secret of at least ${minLength} characters without surrounding whitespace`, true);
      return undefined;
    }
    return value;
  }

  path(name: string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined) return path.resolve(fallback);
    if (value.includes("\0") || value.trim() === "") {
      this.problem(name, "not a usable folder path", "a folder path such as ./.data");
      return path.resolve(fallback);
    }
    return path.resolve(value);
  }

  list(name: string): string[] {
    return (this.raw(name) ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
}

/** A PEM public key (SPKI; `\n` escapes allowed for one-line environments) of a type tokens are verified with. */
const publicKeyOf = (r: Reader, name: string): KeyObject | undefined => {
  const value = r.raw(name);
  if (value === undefined) return undefined;
  const expected = "a PEM public key (-----BEGIN PUBLIC KEY-----) of type RSA, EC (P-256, P-384, P-521) or Ed25519";
  if (/PRIVATE KEY/.test(value)) {
    r.problem(name, "a private key, which this service must not hold", expected, true);
    return undefined;
  }
  let key: KeyObject;
  try {
    key = createPublicKey(value.replace(/\\n/g, "\n"));
  } catch {
    r.problem(name, "not a public key", expected);
    return undefined;
  }
  try {
    publicKeyAlgorithm(key);
  } catch (error) {
    r.problem(name, error instanceof Error ? error.message : "unsupported key", expected);
    return undefined;
  }
  return key;
};

/** COMMERCE_CARRIER_URL with COMMERCE_CARRIER_API_KEY (required with it) and COMMERCE_CARRIER_TIMEOUT_MS, or undefined when no URL is set. */
const carrierApiOf = (r: Reader): CommerceConfig["carrierApi"] => {
  const baseUrl = r.url("COMMERCE_CARRIER_URL", ["http:", "https:"], "an http(s) URL such as https://carrier.example/api");
  const apiKey = r.raw("COMMERCE_CARRIER_API_KEY") ?? "";
  const timeoutMs = r.integer("COMMERCE_CARRIER_TIMEOUT_MS", 10_000, 1, 600_000, "a positive number of milliseconds (at most 600000)");
  if (r.raw("COMMERCE_CARRIER_URL") === undefined) return undefined;
  if (apiKey.length === 0) {
    r.problem("COMMERCE_CARRIER_API_KEY", "required because COMMERCE_CARRIER_URL is set", "the carrier's API key", true);
    return undefined;
  }
  return baseUrl === undefined ? undefined : { baseUrl, apiKey, timeoutMs };
};

/** Where an S3-compatible object store is (AWS S3, MinIO, Garage). */
export interface ObjectStoreConfig {
  /** OBJECT_STORE_URL: the service endpoint, e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000. */
  readonly endpoint: string;
  /** OBJECT_STORE_BUCKET (required with OBJECT_STORE_URL). */
  readonly bucket: string;
  /** OBJECT_STORE_REGION (default us-east-1). */
  readonly region: string;
  /** OBJECT_STORE_ACCESS_KEY_ID and OBJECT_STORE_SECRET_ACCESS_KEY (both or neither; neither: the SDK's default chain). Never logged. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** OBJECT_STORE_FORCE_PATH_STYLE (default true: MinIO, Garage; false for virtual-hosted buckets). */
  readonly forcePathStyle: boolean;
}

/** OBJECT_STORE_*: the S3-compatible store, or undefined when OBJECT_STORE_URL is unset. */
const objectStoreOf = (r: Reader): ObjectStoreConfig | undefined => {
  const endpoint = r.url("OBJECT_STORE_URL", ["http:", "https:"], "an http(s) endpoint such as https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000");
  const bucket = r.raw("OBJECT_STORE_BUCKET");
  const region = r.raw("OBJECT_STORE_REGION") ?? "us-east-1";
  const accessKeyId = r.raw("OBJECT_STORE_ACCESS_KEY_ID");
  const secretAccessKey = r.raw("OBJECT_STORE_SECRET_ACCESS_KEY");
  const forcePathStyle = r.bool("OBJECT_STORE_FORCE_PATH_STYLE", true);
  if (r.raw("OBJECT_STORE_URL") === undefined) {
    for (const name of ["OBJECT_STORE_BUCKET", "OBJECT_STORE_REGION", "OBJECT_STORE_ACCESS_KEY_ID", "OBJECT_STORE_SECRET_ACCESS_KEY"]) {
      if (r.raw(name) !== undefined) r.problem(name, "set without OBJECT_STORE_URL", "OBJECT_STORE_URL as well (or neither, for the local blob store)", name.includes("SECRET"));
    }
    return undefined;
  }
  if (bucket === undefined) r.problem("OBJECT_STORE_BUCKET", "required because OBJECT_STORE_URL is set", "a bucket name such as domainkit-files");
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) r.problem("OBJECT_STORE_BUCKET", "not a bucket name", "3 to 63 lowercase letters, digits, dots and hyphens");
  if (!/^[a-z0-9-]{1,64}$/.test(region)) r.problem("OBJECT_STORE_REGION", "not a region name", "a region such as us-east-1 or eu-west-1");
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const missing = accessKeyId === undefined ? "OBJECT_STORE_ACCESS_KEY_ID" : "OBJECT_STORE_SECRET_ACCESS_KEY";
    r.problem(missing, "required because the other OBJECT_STORE credential is set", "both OBJECT_STORE_ACCESS_KEY_ID and OBJECT_STORE_SECRET_ACCESS_KEY, or neither (the SDK's default chain)", missing.includes("SECRET"));
  }
  if (endpoint === undefined || bucket === undefined) return undefined;
  return {
    endpoint,
    bucket,
    region,
    credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle,
  };
};

/** COMMERCE_SEALING_KEYS: `id:base64,...` of 32-byte keys with distinct ids, or undefined when unset. */
const sealingKeysOf = (r: Reader): CommerceConfig["sealingKeys"] => {
  const raw = r.raw("COMMERCE_SEALING_KEYS");
  if (raw === undefined) return undefined;
  const expected = "comma-separated id:base64 pairs of 32-byte keys (e.g. k1:<44 base64 characters>), the first current";
  const keys: Record<string, Buffer> = {};
  const ids: string[] = [];
  for (const part of raw.split(",")) {
    const colon = part.indexOf(":");
    const id = part.slice(0, Math.max(colon, 0)).trim();
    const key = Buffer.from(part.slice(colon + 1).trim(), "base64");
    if (colon <= 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32 || id in keys) {
      r.problem("COMMERCE_SEALING_KEYS", colon <= 0 || id === "" ? "an entry has no key id" : id in keys ? `the key id ${id} appears twice` : `the key ${id} is not 32 bytes of base64`, expected, true);
      return undefined;
    }
    keys[id] = key;
    ids.push(id);
  }
  return { currentKeyId: ids[0]!, keys };
};

/** Reads the configuration from an environment (process.env by default); throws ConfigError listing every bad variable. */
export const loadConfig = (env: Env = process.env): Config => {
  const r = new Reader(env);
  const port = r.integer("PORT", 3000, 0, 65535, "a port number from 0 to 65535");
  const hostValue = r.raw("HOST") ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:[\]%-]+$/.test(hostValue)) {
    r.problem("HOST", "not a host name or IP address", "an interface address such as 127.0.0.1 or 0.0.0.0");
  }
  const trustedProxies = r.integer("TRUST_PROXY", 0, 0, 10, "the number of reverse proxies in front of the server, from 0 to 10");
  const dataDir = r.path("DATA_DIR", "./.data");
  const databaseUrl = r.url("DATABASE_URL", ["postgres:", "postgresql:"], "a Postgres URL such as postgres://user:password@host:5432/database");
  const databasePoolMax = r.integer("DATABASE_POOL_MAX", 10, 1, 1000, "a whole number of connections from 1 to 1000");
  const shutdownDelayMs = r.integer("SHUTDOWN_DELAY_MS", 0, 0, 600_000, "a number of milliseconds from 0 to 600000");
  const jwtSecret = r.secret("AUTH_JWT_SECRET", 32) ?? DEVELOPMENT_JWT_SECRET;
  const jwtPublicKey = publicKeyOf(r, "AUTH_JWT_PUBLIC_KEY");
  const jwksText = r.url("AUTH_JWT_JWKS_URL", ["https:", "http:"], "the https URL of your identity provider's key set (JWKS)");
  const jwtJwksUrl = jwksText === undefined ? undefined : new URL(jwksText);
  if (jwtJwksUrl !== undefined && jwtPublicKey !== undefined) r.problem("AUTH_JWT_JWKS_URL", "set together with AUTH_JWT_PUBLIC_KEY", "one of the two");
  const jwtIssuer = r.raw("AUTH_JWT_ISSUER");
  const jwtAudience = r.raw("AUTH_JWT_AUDIENCE");
  const blobSigningSecret = r.secret("BLOB_SIGNING_SECRET", 32) ?? DEVELOPMENT_BLOB_SECRET;
  const workerInProcess = r.bool("WORKER_IN_PROCESS", true);
  const migrateOnStart = r.bool("MIGRATE_ON_START", true);
  const logLevel = r.oneOf("LOG_LEVEL", "info", logLevels);
  const logFormat = r.oneOf("LOG_FORMAT", "auto", ["auto", "pretty", "json"] as const);
  const platformOperators = r.list("PLATFORM_OPERATORS");
  const badOperator = platformOperators.find((id) => !uuidPattern.test(id));
  if (badOperator !== undefined) {
    r.problem("PLATFORM_OPERATORS", `${Reader.shown(badOperator)} is not a user id`, "comma-separated user UUIDs");
  }
  const filesDefaultQuotaBytes = r.integer("FILES_DEFAULT_QUOTA_BYTES", 10 * 1024 ** 3, 0, Number.MAX_SAFE_INTEGER, "a whole number of bytes such as 10737418240 (10 GiB)");
  const filesSecurityOperators = r.list("FILES_SECURITY_OPERATORS");
  const badSecurityOperator = filesSecurityOperators.find((id) => !uuidPattern.test(id));
  if (badSecurityOperator !== undefined) {
    r.problem("FILES_SECURITY_OPERATORS", `${Reader.shown(badSecurityOperator)} is not a user id`, "comma-separated user UUIDs");
  }
  const filesTrashRetentionDays = r.integer("FILES_TRASH_RETENTION_DAYS", 30, 1, 3650, "a whole number of days such as 30");
  const projectsExportRetentionDays = r.integer("PROJECTS_EXPORT_RETENTION_DAYS", 7, 1, 3650, "a whole number of days such as 7");
  const projectsQuarantineRetentionDays = r.integer("PROJECTS_QUARANTINE_RETENTION_DAYS", 30, 1, 3650, "a whole number of days such as 30");
  const filesChangeRetentionDays = r.integer("FILES_CHANGE_RETENTION_DAYS", 90, 1, 3650, "a whole number of days such as 90");
  const filesAuditExportRetentionDays = r.integer("FILES_AUDIT_EXPORT_RETENTION_DAYS", 7, 1, 3650, "a whole number of days such as 7");
  const providerWebhookSecrets = r.list("PROVIDER_WEBHOOK_SECRET");
  const blobDir = r.path("BLOB_DIR", path.join(dataDir, "blobs"));
  const smtpUrl = r.url("SMTP_URL", ["smtp:", "smtps:"], "an SMTP URL such as smtp://user:password@mail.example.com:587");
  const from = r.raw("MAIL_FROM") ?? "domainkit@localhost";
  if (!/^[^\s@]+@[^\s@]+$/.test(from) && !/<[^\s@]+@[^\s@]+>\s*$/.test(from)) {
    r.problem("MAIL_FROM", "not an e-mail address", 'an address such as domainkit@example.com or "Name <a@example.com>"');
  }
  const mailFolder = r.path("MAIL_DIR", path.join(dataDir, "mail"));
  const blobPublicUrl = r.url("BLOB_PUBLIC_URL", ["http:", "https:"], "an absolute http(s) URL such as https://api.example.com");
  const paymentProviderUrl = r.url("PAYMENT_PROVIDER_URL", ["http:", "https:"], "an http(s) URL such as http://127.0.0.1:4010");
  const paymentProviderApiKey = r.raw("PAYMENT_PROVIDER_API_KEY") ?? "";
  if (r.raw("PAYMENT_PROVIDER_URL") !== undefined && paymentProviderApiKey.length === 0) {
    r.problem("PAYMENT_PROVIDER_API_KEY", "required because PAYMENT_PROVIDER_URL is set", "the provider's API key");
  }
  const paymentProviderTimeoutMs = r.integer("PAYMENT_PROVIDER_TIMEOUT_MS", 10_000, 1, 600_000, "a positive number of milliseconds (at most 600000)");
  const startupDbWaitSeconds = r.integer("STARTUP_DB_WAIT_SECONDS", 30, 0, 3600, "a whole number of seconds from 0 to 3600");
  const metricsEnabled = r.bool("METRICS_ENABLED", true);
  const metricsToken = r.secret("METRICS_TOKEN", 16);
  const otlpEndpoint = r.url("OTEL_EXPORTER_OTLP_ENDPOINT", ["http:", "https:"], "an OTLP/HTTP base URL such as http://127.0.0.1:4318");
  const serviceName = r.raw("OTEL_SERVICE_NAME") ?? "domainkit";
  const locationKeyHex = r.raw("DELIVERY_LOCATION_KEY");
  if (locationKeyHex !== undefined && !/^[0-9a-fA-F]{64}$/.test(locationKeyHex)) {
    r.problem("DELIVERY_LOCATION_KEY", "not a 256-bit key", "64 hexadecimal digits", true);
  }
  const delivery: DeliveryConfig = {
    settings: {
      offerFanout: r.integer("DELIVERY_OFFER_FANOUT", 3, 1, 50, "a whole number from 1 to 50"),
      offerTtlSeconds: r.integer("DELIVERY_OFFER_TTL_SECONDS", 30, 1, 3600, "a whole number of seconds from 1 to 3600"),
      dispatchRadiusM: r.integer("DELIVERY_DISPATCH_RADIUS_M", 20_000, 100, 200_000, "a whole number of metres from 100 to 200000"),
      acceptDeadlineSeconds: r.integer("DELIVERY_ACCEPT_DEADLINE_SECONDS", 300, 1, 86_400, "a whole number of seconds from 1 to 86400"),
      quoteTtlSeconds: r.integer("DELIVERY_QUOTE_TTL_SECONDS", 300, 1, 86_400, "a whole number of seconds from 1 to 86400"),
      locationRetentionSeconds: r.integer("DELIVERY_LOCATION_RETENTION_SECONDS", 3600, 60, 7 * 86_400, "a whole number of seconds from 60 to 604800"),
      stepUpMaxAgeSeconds: r.integer("DELIVERY_STEP_UP_SECONDS", 300, 10, 86_400, "a whole number of seconds from 10 to 86400"),
      chatRetentionSeconds: r.integer("DELIVERY_CHAT_RETENTION_SECONDS", 86_400, 0, 30 * 86_400, "a whole number of seconds from 0 to 2592000"),
    },
    locationKey: Uint8Array.from(Buffer.from(locationKeyHex !== undefined && /^[0-9a-fA-F]{64}$/.test(locationKeyHex) ? locationKeyHex : DEVELOPMENT_LOCATION_KEY, "hex")),
    usingDevelopmentLocationKey: locationKeyHex === undefined,
    dispatchers: r.list("DELIVERY_DISPATCHERS").flatMap((entry) => {
      const match = /^([^=]+)=(-?[\d.]+):(-?[\d.]+):(-?[\d.]+):(-?[\d.]+)$/.exec(entry);
      const [minLat, minLng, maxLat, maxLng] = (match?.slice(2) ?? []).map(Number);
      if (match === null || !uuidPattern.test(match[1] ?? "") || minLat === undefined || minLng === undefined || maxLat === undefined || maxLng === undefined
        || !(minLat <= maxLat && minLng <= maxLng && minLat >= -90 && maxLat <= 90 && minLng >= -180 && maxLng <= 180)) {
        r.problem("DELIVERY_DISPATCHERS", `${Reader.shown(entry)} is not a dispatcher and region`, "comma-separated <user uuid>=<minLat>:<minLng>:<maxLat>:<maxLng>");
        return [];
      }
      return [{ userId: (match[1] ?? "").toLowerCase(), region: { minLat, minLng, maxLat, maxLng } }];
    }),
  };
  const commerce: CommerceConfig = {
    sealingKeys: sealingKeysOf(r),
    carrierWebhookSecrets: r.list("COMMERCE_CARRIER_WEBHOOK_SECRET"),
    carrierApi: carrierApiOf(r),
  };
  const objectStore = objectStoreOf(r);
  // With NODE_ENV=production the documented development secrets would let anyone who read the
  // docs mint bearer tokens and blob grants: the server refuses to start instead of warning.
  // (The modules' sealing keys are checked where the modules are known: hosts/ReferenceServer.ts.)
  if (env.NODE_ENV === "production") {
    const providerKeys = jwtPublicKey !== undefined || jwtJwksUrl !== undefined;
    // With a provider's keys and no secret of one's own, HS256 is off: the default secret is never used.
    // A secret that is set but unusable is reported once above (too short), not again as the development one.
    const unusable = (name: string, fallback: string): boolean => r.raw(name) !== undefined && r.raw(name) !== fallback;
    if (jwtSecret === DEVELOPMENT_JWT_SECRET && !providerKeys && !unusable("AUTH_JWT_SECRET", DEVELOPMENT_JWT_SECRET)) {
      r.problem("AUTH_JWT_SECRET", "the documented development secret cannot be used in production", "a secret of your own", true);
    }
    // A provider signs tokens for all its applications: without an audience, another one's tokens would pass.
    if (providerKeys && jwtAudience === undefined) {
      r.problem("AUTH_JWT_AUDIENCE", "required in production with AUTH_JWT_PUBLIC_KEY or AUTH_JWT_JWKS_URL", "the audience your identity provider puts in this service's tokens");
    }
    // Keys fetched in clear could be replaced on the way.
    if (jwtJwksUrl !== undefined && jwtJwksUrl.protocol !== "https:") r.problem("AUTH_JWT_JWKS_URL", "not https in production", "the https URL of your identity provider's key set (JWKS)");
    if (blobSigningSecret === DEVELOPMENT_BLOB_SECRET && !unusable("BLOB_SIGNING_SECRET", DEVELOPMENT_BLOB_SECRET)) r.problem("BLOB_SIGNING_SECRET", "the documented development secret cannot be used in production", "a secret of your own", true);
    // /metrics carries business state (outbox backlog, open reconciliation exceptions, request counts per route).
    if (metricsEnabled && metricsToken === undefined) {
      r.problem("METRICS_TOKEN", "required in production while METRICS_ENABLED is true: /metrics would be public", "a token of 16+ characters for your scraper, or METRICS_ENABLED=false");
    }
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return {
    port,
    host: hostValue,
    trustedProxies,
    dataDir,
    databaseUrl,
    databasePoolMax,
    shutdownDelayMs,
    jwtSecret,
    usingDevelopmentSecret: jwtSecret === DEVELOPMENT_JWT_SECRET,
    jwtPublicKey,
    jwtJwksUrl,
    jwtIssuer,
    jwtAudience,
    workerInProcess,
    migrateOnStart,
    logLevel,
    platformOperators,
    filesDefaultQuotaBytes,
    filesSecurityOperators,
    filesTrashRetentionDays,
    projectsExportRetentionDays,
    projectsQuarantineRetentionDays,
    filesChangeRetentionDays,
    filesAuditExportRetentionDays,
    providerWebhookSecrets,
    blobDir,
    blobSigningSecret,
    usingDevelopmentBlobSecret: blobSigningSecret === DEVELOPMENT_BLOB_SECRET,
    mail: { smtpUrl, from, folder: mailFolder },
    blobPublicUrl,
    objectStore,
    paymentProviderUrl,
    paymentProviderApiKey,
    paymentProviderTimeoutMs,
    startupDbWaitSeconds,
    logFormat,
    production: env.NODE_ENV === "production",
    metricsEnabled,
    metricsToken,
    otlpEndpoint,
    serviceName,
    delivery,
    commerce,
  };
};

/**
 * The settings still at their documented development value that a process composing `moduleNames`
 * would use: AUTH_JWT_SECRET (while HS256 tokens are accepted), BLOB_SIGNING_SECRET, and the
 * modules' sealing keys (commerce: COMMERCE_SEALING_KEYS, delivery: DELIVERY_LOCATION_KEY).
 */
export const developmentKeysInUse = (config: Config, moduleNames: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...(config.usingDevelopmentSecret && acceptsSecretTokens(config) ? ["AUTH_JWT_SECRET"] : []),
  ...(config.usingDevelopmentBlobSecret ? ["BLOB_SIGNING_SECRET"] : []),
  ...(config.commerce.sealingKeys === undefined && moduleNames.includes("commerce") ? ["COMMERCE_SEALING_KEYS"] : []),
  ...(config.delivery.usingDevelopmentLocationKey && moduleNames.includes("delivery") ? ["DELIVERY_LOCATION_KEY"] : []),
];

/**
 * In production, data sealed with a documented key is not sealed, and a worker sealing or opening
 * with another key than the server's breaks what the server wrote: every process that composes the
 * modules (server, worker) refuses to start with a ConfigError naming each such setting.
 */
export const refuseDevelopmentKeysInProduction = (config: Config, moduleNames: ReadonlyArray<string>): void => {
  const names = developmentKeysInUse(config, moduleNames);
  if (config.production && names.length > 0) {
    throw new ConfigError(names.map((name) => `${name}: the documented development value cannot be used in production; expected one of your own`));
  }
};

/** True when HS256 tokens (the CLI's `token`, AUTH_JWT_SECRET) are accepted: always, unless a provider's keys replace the default secret. */
export const acceptsSecretTokens = (config: Pick<Config, "jwtPublicKey" | "jwtJwksUrl" | "usingDevelopmentSecret">): boolean =>
  (config.jwtPublicKey === undefined && config.jwtJwksUrl === undefined) || !config.usingDevelopmentSecret;

/** How the reference server verifies user tokens, from its configuration (made once per server). */
export const tokenVerificationOf = (
  config: Pick<Config, "jwtSecret" | "jwtPublicKey" | "jwtJwksUrl" | "jwtIssuer" | "jwtAudience" | "usingDevelopmentSecret">,
): TokenVerification => ({
  ...(acceptsSecretTokens(config) ? { secret: config.jwtSecret } : {}),
  ...(config.jwtPublicKey !== undefined ? { publicKey: config.jwtPublicKey } : {}),
  ...(config.jwtJwksUrl !== undefined ? { jwksUrl: config.jwtJwksUrl } : {}),
  ...(config.jwtIssuer !== undefined ? { issuer: config.jwtIssuer } : {}),
  ...(config.jwtAudience !== undefined ? { audience: config.jwtAudience } : {}),
});
