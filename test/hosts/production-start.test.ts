/**
 * A production deployment as an operator starts it (NODE_ENV=production, Postgres or SQLite, an
 * S3-compatible store, the worker apart): every process refuses what it would get wrong at once,
 * naming the setting, without echoing a secret. The commands run in this process (hosts/cli.ts
 * `main` with its own output and exit status: test/hosts/support.ts `cli`); none of them gets as
 * far as serving, so nothing is left running.
 */
import t from "tap";
import { loadConfig, ConfigError } from "../../hosts/Config.js";
import { createServer } from "../../hosts/ReferenceServer.js";
import { startS3Server } from "../support/s3Server.js";
import { cli, startReferenceServer, testConfig } from "./support.js";

/** Every secret production asks for, of one's own. */
const productionSecrets = {
  NODE_ENV: "production",
  AUTH_JWT_SECRET: "a-production-jwt-secret-of-our-own-0123456789",
  BLOB_SIGNING_SECRET: "a-production-blob-secret-of-our-own-012345678",
  METRICS_TOKEN: "a-metrics-token-of-our-own",
  COMMERCE_SEALING_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
  DELIVERY_LOCATION_KEY: "ab".repeat(32),
};

/** Runs `domainkit <args>` in this process; resolves its exit status and output instead of rejecting. */
const run = (config: Parameters<typeof cli>[0], args: ReadonlyArray<string>, env: Record<string, string | undefined>) =>
  cli(config, args, env).then(
    (output) => ({ code: 0, ...output }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "", stderr: error.stderr ?? String(error) }),
  );

t.test("a production worker refuses the documented development sealing keys, as the server does, naming them", async (t) => {
  const config = await testConfig("sqlite", t);
  const { COMMERCE_SEALING_KEYS: _sealing, DELIVERY_LOCATION_KEY: _location, ...withoutKeys } = productionSecrets;
  const result = await run(config, ["worker"], withoutKeys);
  t.equal(result.code, 2, "a configuration error exits 2");
  t.match(result.stderr, /configuration error: COMMERCE_SEALING_KEYS: the documented development value cannot be used in production/);
  t.match(result.stderr, /configuration error: DELIVERY_LOCATION_KEY: the documented development value cannot be used in production/);
  t.notMatch(result.stderr, /worker running/, "the worker never started");
});

t.test("a secret that is set but too short is one problem, not also 'the development secret'", async (t) => {
  let error: unknown;
  try {
    loadConfig({ ...productionSecrets, AUTH_JWT_SECRET: "short", BLOB_SIGNING_SECRET: "short-too" });
  } catch (caught) {
    error = caught;
  }
  t.ok(error instanceof ConfigError);
  const lines = (error as ConfigError).lines;
  t.equal(lines.length, 2, lines.join("\n"));
  t.match(lines[0], /^AUTH_JWT_SECRET=<5 characters, not shown>: too short/);
  t.match(lines[1], /^BLOB_SIGNING_SECRET=<9 characters, not shown>: too short/);
});

t.test("a bucket that does not exist stops the server and the worker at start, naming OBJECT_STORE_BUCKET", async (t) => {
  const s3 = await startS3Server(t, "domainkit-files");
  const env = { ...s3.env, OBJECT_STORE_BUCKET: "domainkit-filez" };
  const config = await testConfig("sqlite", t, env);
  await t.rejects(createServer(config), { name: "StartupError", message: /OBJECT_STORE_BUCKET.*domainkit-filez.*does not exist/ });
  for (const command of ["serve", "worker"]) {
    const result = await run(config, [command], { ...env, PORT: "0" });
    t.equal(result.code, 1, `${command}: a start-up problem exits 1`);
    t.match(result.stderr, /^domainkit: cannot start: OBJECT_STORE_BUCKET="domainkit-filez": the bucket does not exist at http:\/\/127\.0\.0\.1:\d+/m, command);
    t.notMatch(result.stderr, new RegExp(s3.secretAccessKey), "the store's secret is never printed");
  }
  // The bucket that exists: the server starts.
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t, s3.env));
  t.equal((await fetch(`${server.url}/readyz`)).status, 200);
});

t.test("in production the in-process payment sandbox is named in a warning at start", async (t) => {
  const config = await testConfig("sqlite", t, productionSecrets);
  const { logText } = await startReferenceServer(t, config);
  t.match(logText(), /PAYMENT_PROVIDER_URL is not set: payments go to the in-process sandbox/);
  const withProvider = await testConfig("sqlite", t, { ...productionSecrets, PAYMENT_PROVIDER_URL: "http://127.0.0.1:9", PAYMENT_PROVIDER_API_KEY: "a-provider-key-0123456789" });
  const { logText: quiet } = await startReferenceServer(t, withProvider);
  t.notMatch(quiet(), /PAYMENT_PROVIDER_URL is not set/);
});

t.test("the help names every setting production requires", async (t) => {
  const config = await testConfig("sqlite", t);
  const { stdout } = await cli(config, ["--help"]);
  for (const name of ["NODE_ENV", "AUTH_JWT_SECRET", "BLOB_SIGNING_SECRET", "METRICS_TOKEN", "COMMERCE_SEALING_KEYS", "DELIVERY_LOCATION_KEY", "OBJECT_STORE_URL", "OBJECT_STORE_BUCKET"]) {
    t.match(stdout, new RegExp(`\\b${name}\\b`), name);
  }
});
