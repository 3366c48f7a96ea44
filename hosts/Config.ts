/**
 * Reference server configuration, read from the environment with documented defaults
 * (README "Configuration"). Nothing else in the project reads process.env.
 */
import path from "node:path";

/** The development JWT secret used when AUTH_JWT_SECRET is unset; never use it in production. */
export const DEVELOPMENT_JWT_SECRET = "domainkit-development-secret-change-me-0123456789";

/** The development blob grant secret used when BLOB_SIGNING_SECRET is unset; never use it in production. */
export const DEVELOPMENT_BLOB_SECRET = "domainkit-development-blob-secret-change-me-0123";

export interface Config {
  /** HTTP port (PORT, default 3000). */
  readonly port: number;
  /** Interface to bind (HOST, default 127.0.0.1). */
  readonly host: string;
  /** Folder for the SQLite file and the local blob store (DATA_DIR, default ./.data). */
  readonly dataDir: string;
  /** Postgres connection string; SQLite under dataDir when absent (DATABASE_URL). */
  readonly databaseUrl: string | undefined;
  /** HS256 secret for bearer tokens (AUTH_JWT_SECRET). */
  readonly jwtSecret: string;
  /** True when jwtSecret is the documented development default. */
  readonly usingDevelopmentSecret: boolean;
  /** Run the outbox relay and job runner inside the server process (WORKER_IN_PROCESS, default true). */
  readonly workerInProcess: boolean;
  /** Apply pending migrations when the server starts (MIGRATE_ON_START, default true). */
  readonly migrateOnStart: boolean;
  /** pino level (LOG_LEVEL, default info). */
  readonly logLevel: string;
  /** User ids of the platform operators (PLATFORM_OPERATORS, comma-separated): payments replay dual control. */
  readonly platformOperators: ReadonlyArray<string>;
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
  /**
   * The payment provider's HTTP API (PAYMENT_PROVIDER_URL, e.g. `domainkit sandbox` at
   * http://127.0.0.1:4010); unset: the in-process sandbox (development and tests only).
   */
  readonly paymentProviderUrl: string | undefined;
  /** The key we present to the provider (PAYMENT_PROVIDER_API_KEY); required with PAYMENT_PROVIDER_URL. Never logged. */
  readonly paymentProviderApiKey: string;
  /** Per-call provider timeout in milliseconds (PAYMENT_PROVIDER_TIMEOUT_MS, default 10000); a timeout is an unknown outcome. */
  readonly paymentProviderTimeoutMs: number;
}

const bool = (value: string | undefined, fallback: boolean): boolean =>
  value === undefined || value === "" ? fallback : !["0", "false", "no", "off"].includes(value.toLowerCase());

/** Reads the configuration from an environment (process.env by default). */
export const loadConfig = (env: Readonly<Record<string, string | undefined>> = process.env): Config => {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const jwtSecret = env.AUTH_JWT_SECRET && env.AUTH_JWT_SECRET.length > 0 ? env.AUTH_JWT_SECRET : DEVELOPMENT_JWT_SECRET;
  const blobSigningSecret = env.BLOB_SIGNING_SECRET && env.BLOB_SIGNING_SECRET.length > 0 ? env.BLOB_SIGNING_SECRET : DEVELOPMENT_BLOB_SECRET;
  if (blobSigningSecret.length < 32) throw new Error("BLOB_SIGNING_SECRET must be at least 32 characters");
  const dataDir = path.resolve(env.DATA_DIR ?? "./.data");
  const paymentProviderUrl = env.PAYMENT_PROVIDER_URL && env.PAYMENT_PROVIDER_URL.length > 0 ? env.PAYMENT_PROVIDER_URL : undefined;
  const paymentProviderApiKey = env.PAYMENT_PROVIDER_API_KEY ?? "";
  if (paymentProviderUrl !== undefined && !/^https?:\/\//.test(paymentProviderUrl)) throw new Error("PAYMENT_PROVIDER_URL must be an http(s) URL");
  if (paymentProviderUrl !== undefined && paymentProviderApiKey.length === 0) throw new Error("PAYMENT_PROVIDER_API_KEY must be set with PAYMENT_PROVIDER_URL");
  const paymentProviderTimeoutMs = Number(env.PAYMENT_PROVIDER_TIMEOUT_MS && env.PAYMENT_PROVIDER_TIMEOUT_MS.length > 0 ? env.PAYMENT_PROVIDER_TIMEOUT_MS : 10_000);
  if (!Number.isInteger(paymentProviderTimeoutMs) || paymentProviderTimeoutMs <= 0) {
    throw new Error(`PAYMENT_PROVIDER_TIMEOUT_MS must be a positive number of milliseconds, got ${env.PAYMENT_PROVIDER_TIMEOUT_MS}`);
  }
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir,
    databaseUrl: env.DATABASE_URL && env.DATABASE_URL.length > 0 ? env.DATABASE_URL : undefined,
    jwtSecret,
    usingDevelopmentSecret: jwtSecret === DEVELOPMENT_JWT_SECRET,
    workerInProcess: bool(env.WORKER_IN_PROCESS, true),
    migrateOnStart: bool(env.MIGRATE_ON_START, true),
    logLevel: env.LOG_LEVEL ?? "info",
    platformOperators: (env.PLATFORM_OPERATORS ?? "")
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id.length > 0),
    providerWebhookSecrets: (env.PROVIDER_WEBHOOK_SECRET ?? "")
      .split(",")
      .map((secret) => secret.trim())
      .filter((secret) => secret.length > 0),
    blobDir: path.resolve(env.BLOB_DIR && env.BLOB_DIR.length > 0 ? env.BLOB_DIR : path.join(dataDir, "blobs")),
    blobSigningSecret,
    usingDevelopmentBlobSecret: blobSigningSecret === DEVELOPMENT_BLOB_SECRET,
    mail: {
      smtpUrl: env.SMTP_URL && env.SMTP_URL.length > 0 ? env.SMTP_URL : undefined,
      from: env.MAIL_FROM && env.MAIL_FROM.length > 0 ? env.MAIL_FROM : "domainkit@localhost",
      folder: path.resolve(env.MAIL_DIR && env.MAIL_DIR.length > 0 ? env.MAIL_DIR : path.join(dataDir, "mail")),
    },
    blobPublicUrl: env.BLOB_PUBLIC_URL && env.BLOB_PUBLIC_URL.length > 0 ? env.BLOB_PUBLIC_URL : undefined,
    paymentProviderUrl,
    paymentProviderApiKey,
    paymentProviderTimeoutMs,
  };
};
