/**
 * Configuration rules (hosts/Config.ts): every variable is validated, each bad one is one line
 * naming the variable, the problem and the expected form; secrets are never echoed and URL
 * credentials are redacted. Also the log format choice and redaction in readable logs.
 */
import { generateKeyPairSync } from "node:crypto";
import { Writable } from "node:stream";
import t from "tap";
import { createLogger, wantsPrettyLogs } from "../../adapters/koa/Logging.js";
import { redactUrl } from "../../adapters/observability/Redact.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, DEVELOPMENT_JWT_SECRET, loadConfig } from "../../hosts/Config.js";
import { createServer } from "../../hosts/ReferenceServer.js";
import { describeError, isTransientConnectError } from "../../hosts/Database.js";

/** A public key of a type tokens are verified with, as PEM. */
const ed25519Pem = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }) as string;

const problemsOf = (env: Record<string, string>): ReadonlyArray<string> => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  return [];
};

t.test("the defaults load without problems", async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 3000);
  t.equal(config.startupDbWaitSeconds, 30);
  t.equal(config.databasePoolMax, 10);
  t.equal(config.metricsEnabled, true);
  t.equal(config.metricsToken, undefined);
  t.equal(config.otlpEndpoint, undefined);
  t.equal(config.logFormat, "auto");
});

t.test("a provider's public key: its tokens' algorithm follows the key, and in production HS256 is off without a secret of one's own", async (t) => {
  const config = loadConfig({ AUTH_JWT_PUBLIC_KEY: ed25519Pem.replace(/\n/g, "\\n"), AUTH_JWT_AUDIENCE: "api", AUTH_JWT_ISSUER: "https://id.example.com/" });
  t.equal(config.jwtPublicKey?.asymmetricKeyType, "ed25519", "one-line PEM with \\n escapes");
  t.equal(config.jwtAudience, "api");
  t.equal(config.jwtIssuer, "https://id.example.com/");
  t.same(problemsOf({ NODE_ENV: "production", AUTH_JWT_PUBLIC_KEY: ed25519Pem, AUTH_JWT_AUDIENCE: "api", BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_ENABLED: "false" }), [], "no AUTH_JWT_SECRET needed");
  t.same(problemsOf({ AUTH_JWT_PUBLIC_KEY: ed25519Pem }), [], "outside production the audience is optional");
  const keySet = loadConfig({ NODE_ENV: "production", AUTH_JWT_JWKS_URL: "https://id.example.com/.well-known/jwks.json", AUTH_JWT_AUDIENCE: "api", BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_TOKEN: "m".repeat(20) });
  t.equal(keySet.jwtJwksUrl?.href, "https://id.example.com/.well-known/jwks.json", "a key set instead of one key, no secret needed");
});

t.test("each bad variable is one line: name, value, problem, expected form", async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: "abc" }, /^PORT="abc": not a whole number; expected a port number from 0 to 65535$/],
    [{ PORT: "70000" }, /^PORT="70000": out of range; expected a port number from 0 to 65535$/],
    [{ HOST: "local host" }, /^HOST="local host": not a host name or IP address; expected an interface address/],
    [{ DATABASE_URL: "localhost:5432/app" }, /^DATABASE_URL=.*; expected a Postgres URL such as postgres:\/\//],
    [{ WORKER_IN_PROCESS: "maybe" }, /^WORKER_IN_PROCESS="maybe": not a boolean; expected true or false/],
    [{ MIGRATE_ON_START: "2" }, /^MIGRATE_ON_START="2": not a boolean/],
    [{ LOG_LEVEL: "verbose" }, /^LOG_LEVEL="verbose": not a known value; expected one of fatal, error, warn, info, debug, trace, silent$/],
    [{ LOG_FORMAT: "xml" }, /^LOG_FORMAT="xml": not a known value; expected one of auto, pretty, json$/],
    [{ PLATFORM_OPERATORS: "alice" }, /^PLATFORM_OPERATORS="alice": "alice" is not a user id; expected comma-separated user UUIDs$/],
    [{ SMTP_URL: "mail.example.com" }, /^SMTP_URL="mail.example.com": not a URL; expected an SMTP URL/],
    [{ MAIL_FROM: "nobody" }, /^MAIL_FROM="nobody": not an e-mail address/],
    [{ BLOB_PUBLIC_URL: "ftp://files.example.com" }, /^BLOB_PUBLIC_URL=.*the scheme ftp: is not supported; expected an absolute http\(s\) URL/],
    [{ PAYMENT_PROVIDER_URL: "http://127.0.0.1:4010" }, /^PAYMENT_PROVIDER_API_KEY \(unset\): required because PAYMENT_PROVIDER_URL is set/],
    [{ PAYMENT_PROVIDER_TIMEOUT_MS: "0" }, /^PAYMENT_PROVIDER_TIMEOUT_MS="0": out of range; expected a positive number of milliseconds/],
    [{ AUTH_JWT_PUBLIC_KEY: "not a key" }, /^AUTH_JWT_PUBLIC_KEY="not a key": not a public key; expected a PEM public key/],
    [{ AUTH_JWT_PUBLIC_KEY: `-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----` }, /^AUTH_JWT_PUBLIC_KEY=<\d+ characters, not shown>: a private key, which this service must not hold/],
    [{ NODE_ENV: "production", AUTH_JWT_PUBLIC_KEY: ed25519Pem, BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_ENABLED: "false" }, /^AUTH_JWT_AUDIENCE \(unset\): required in production with AUTH_JWT_PUBLIC_KEY/],
    [{ AUTH_JWT_JWKS_URL: "id.example.com/jwks" }, /^AUTH_JWT_JWKS_URL="id.example.com\/jwks": not a URL; expected the https URL of your identity provider's key set/],
    [{ AUTH_JWT_JWKS_URL: "https://id.example.com/jwks", AUTH_JWT_PUBLIC_KEY: ed25519Pem }, /^AUTH_JWT_JWKS_URL="https:\/\/id.example.com\/jwks": set together with AUTH_JWT_PUBLIC_KEY; expected one of the two$/],
    [{ NODE_ENV: "production", AUTH_JWT_JWKS_URL: "http://id.example.com/jwks", AUTH_JWT_AUDIENCE: "api", BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_ENABLED: "false" }, /^AUTH_JWT_JWKS_URL="http:\/\/id.example.com\/jwks": not https in production/],
    [{ DATABASE_POOL_MAX: "0" }, /^DATABASE_POOL_MAX="0": out of range; expected a whole number of connections from 1 to 1000$/],
    [{ DATABASE_POOL_MAX: "many" }, /^DATABASE_POOL_MAX="many": not a whole number; expected a whole number of connections from 1 to 1000$/],
    [{ STARTUP_DB_WAIT_SECONDS: "soon" }, /^STARTUP_DB_WAIT_SECONDS="soon": not a whole number; expected a whole number of seconds from 0 to 3600$/],
    [{ METRICS_ENABLED: "perhaps" }, /^METRICS_ENABLED="perhaps": not a boolean/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /^OTEL_EXPORTER_OTLP_ENDPOINT=.*; expected an OTLP\/HTTP base URL/],
    [{ COMMERCE_SEALING_KEYS: "k1:c2hvcnQ=" }, /^COMMERCE_SEALING_KEYS=<\d+ characters, not shown>: the key k1 is not 32 bytes of base64; expected comma-separated id:base64 pairs/],
    [{ COMMERCE_SEALING_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64")},k1:${Buffer.alloc(32, 2).toString("base64")}` }, /^COMMERCE_SEALING_KEYS=<\d+ characters, not shown>: the key id k1 appears twice/],
  ];
  for (const [env, expected] of cases) {
    const lines = problemsOf(env);
    t.equal(lines.length, 1, `${Object.keys(env)[0]}: one line`);
    t.match(lines[0], expected);
  }
});

t.test("commerce sealing keys: the first listed is current, every listed key opens what it sealed", async (t) => {
  const current = Buffer.alloc(32, 7);
  const older = Buffer.alloc(32, 9);
  const config = loadConfig({ COMMERCE_SEALING_KEYS: `k2:${current.toString("base64")}, k1:${older.toString("base64")}`, COMMERCE_CARRIER_WEBHOOK_SECRET: "s-new,s-old" });
  t.equal(config.commerce.sealingKeys?.currentKeyId, "k2");
  t.same(Object.keys(config.commerce.sealingKeys?.keys ?? {}), ["k2", "k1"]);
  t.ok(config.commerce.sealingKeys?.keys.k1?.equals(older));
  t.same(config.commerce.carrierWebhookSecrets, ["s-new", "s-old"]);
  t.equal(loadConfig({}).commerce.sealingKeys, undefined, "unset: the module's development key (the server warns)");
});

t.test("secrets are never echoed: too-short secrets show only their length", async (t) => {
  const lines = problemsOf({ AUTH_JWT_SECRET: "tiny-secret", BLOB_SIGNING_SECRET: "also-short", METRICS_TOKEN: " padded-token-value-123 " });
  t.equal(lines.length, 3);
  t.match(lines[0], /^AUTH_JWT_SECRET=<11 characters, not shown>: too short; expected a secret of at least 32 characters/);
  t.match(lines[1], /^BLOB_SIGNING_SECRET=<10 characters, not shown>: too short/);
  t.match(lines[2], /^METRICS_TOKEN=<24 characters, not shown>: has leading or trailing whitespace/);
  t.notMatch(lines.join("\n"), /tiny-secret|also-short|padded-token/);
});

t.test("every bad variable is reported at once, not only the first", async (t) => {
  const lines = problemsOf({ PORT: "x", LOG_LEVEL: "y", STARTUP_DB_WAIT_SECONDS: "z" });
  t.same(lines.map((line) => line.split("=")[0]), ["PORT", "LOG_LEVEL", "STARTUP_DB_WAIT_SECONDS"]);
});

t.test("URL credentials are redacted in messages (userinfo and secret query parameters)", async (t) => {
  t.equal(redactUrl("postgres://app:hunter2@db:5432/app"), "postgres://app:[REDACTED]@db:5432/app");
  t.equal(redactUrl("failed: postgresql://u:p%40ss@h/d?sslmode=require&password=x2"), "failed: postgresql://u:[REDACTED]@h/d?sslmode=require&password=[REDACTED]");
  t.equal(redactUrl("smtp://mailer:pw@mail:587 and http://h/?token=abc"), "smtp://mailer:[REDACTED]@mail:587 and http://h/?token=[REDACTED]");
  t.equal(redactUrl("no url here"), "no url here");
  const bad = problemsOf({ DATABASE_URL: "mysql://root:hunter2@db/app" });
  t.notMatch(bad[0], /hunter2/);
  t.match(bad[0], /mysql:\/\/root:\[REDACTED\]@db\/app/);
});

t.test("connection errors: refused and starting-up are worth waiting for; a wrong password is not", async (t) => {
  t.equal(isTransientConnectError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })), true);
  t.equal(isTransientConnectError(Object.assign(new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })], ""), {})), true);
  t.equal(isTransientConnectError(Object.assign(new Error("the database system is starting up"), { code: "57P03" })), true);
  t.equal(isTransientConnectError(Object.assign(new Error('password authentication failed for user "app"'), { code: "28P01" })), false);
  t.equal(describeError(new Error("could not connect to postgres://app:pw@db/app\n  retry")), "could not connect to postgres://app:[REDACTED]@db/app retry");
});

t.test("log format: pretty on a terminal outside production, JSON otherwise or when asked", async (t) => {
  t.equal(wantsPrettyLogs({ format: "auto", isTTY: true, production: false }), true);
  t.equal(wantsPrettyLogs({ format: "auto", isTTY: false, production: false }), false, "piped output stays JSON");
  t.equal(wantsPrettyLogs({ format: "auto", isTTY: true, production: true }), false, "production stays JSON");
  t.equal(wantsPrettyLogs({ format: "json", isTTY: true }), false);
  t.equal(wantsPrettyLogs({ format: "pretty", isTTY: false, production: true }), true);
});

const capture = (): { stream: Writable; text: () => string } => {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  return { stream, text: () => text };
};

t.test("readable log lines keep redaction in force", async (t) => {
  const out = capture();
  const logger = createLogger({ format: "pretty", destination: out.stream });
  logger.info({ headers: { authorization: "Bearer top-secret" }, api_key: "sk_live_123", request_id: "r-1" }, "request");
  await new Promise((resolve) => setTimeout(resolve, 20));
  const text = out.text();
  t.match(text, /INFO.*request/, "a readable line");
  t.notMatch(text.split("\n")[0], /^\{/, "not JSON");
  t.match(text, /"request_id":"r-1"/);
  t.equal(text.trim().split("\n").length, 1, "one line per event");
  t.notMatch(text, /top-secret|sk_live_123/, "secrets redacted");
  t.match(text, /\[REDACTED\]/);
});

t.test("JSON log lines keep redaction in force", async (t) => {
  const out = capture();
  const logger = createLogger({ format: "json", destination: out.stream });
  logger.info({ token: "abc-secret" }, "hello");
  const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
  t.equal(line.msg, "hello");
  t.equal(line.token, "[REDACTED]");
});

t.test("with NODE_ENV=production the documented development secrets and keys refuse to start, never echoed", async (t) => {
  const lines = problemsOf({ NODE_ENV: "production" });
  t.match(lines, [
    /^AUTH_JWT_SECRET .*development secret cannot be used in production/,
    /^BLOB_SIGNING_SECRET .*development secret cannot be used in production/,
    /^METRICS_TOKEN \(unset\): required in production while METRICS_ENABLED is true/,
  ]);
  t.equal(lines.length, 3, "only the two secrets and the metrics token");
  t.same(problemsOf({ NODE_ENV: "production", AUTH_JWT_SECRET: DEVELOPMENT_JWT_SECRET, BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_TOKEN: "m".repeat(20) }).length, 1, "the development value given explicitly is refused too");
  t.notMatch(lines.join("\n"), new RegExp(DEVELOPMENT_JWT_SECRET), "the secret itself is never printed");
  t.same(problemsOf({ NODE_ENV: "production", AUTH_JWT_SECRET: "a".repeat(40), BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_TOKEN: "m".repeat(20) }), [], "secrets of one's own load");
  t.same(problemsOf({ NODE_ENV: "production", AUTH_JWT_SECRET: "a".repeat(40), BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_ENABLED: "false" }), [], "without metrics, no metrics token");
  t.same(problemsOf({}), [], "outside production the development secrets load (with a warning at start)");

  // The modules' sealing keys are refused by the server, which knows the modules it mounts.
  const config = loadConfig({ NODE_ENV: "production", AUTH_JWT_SECRET: "a".repeat(40), BLOB_SIGNING_SECRET: "b".repeat(40), METRICS_TOKEN: "m".repeat(20), DATA_DIR: mkdtempSync(join(tmpdir(), "domainkit-prod-")) });
  t.teardown(() => rmSync(config.dataDir, { recursive: true, force: true }));
  await t.rejects(createServer(config), { name: "ConfigError", message: /COMMERCE_SEALING_KEYS[\s\S]*DELIVERY_LOCATION_KEY/ }, "the reference server refuses the development sealing keys in production");
});
