/**
 * The sandbox provider as a separate process: `domainkit sandbox --port 4010 --webhook-url
 * http://127.0.0.1:3000/v1/webhooks/provider` (or `node dist/adapters/payments/providers/sandbox/sandboxMain.js`
 * with the same flags). SANDBOX_API_KEY (required, at least 16 characters) is the key our
 * service presents (its PAYMENT_PROVIDER_API_KEY); PROVIDER_WEBHOOK_SECRET (comma-separated while
 * rotating, every one signs) signs the pushed webhooks. Binds 127.0.0.1 unless --host says
 * otherwise. Prints one JSON line `{"sandbox":"<url>"}` once listening; secrets are never printed.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startSandboxServer, type SandboxServer } from "./SandboxServer.js";

/** A flag or environment variable of `domainkit sandbox` is missing or invalid (the CLI prints usage, exit 2). */
export class SandboxUsageError extends Error {}

/** What `domainkit sandbox` reads from its flags and environment. */
export interface SandboxProcessSettings {
  readonly port: number;
  readonly host: string;
  readonly webhookUrl: string | undefined;
  readonly apiKey: string;
  readonly webhookSecrets: ReadonlyArray<string>;
}

/** Reads the settings from `argv` (flags after `sandbox`) and `env`; throws SandboxUsageError (or a parseArgs error) when invalid. */
export const sandboxSettingsFrom = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>): SandboxProcessSettings => {
  const { values } = parseArgs({
    args: [...argv],
    options: { port: { type: "string" }, host: { type: "string" }, "webhook-url": { type: "string" } },
    strict: true,
  });
  const port = Number(values.port ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SandboxUsageError("--port must be a port number");
  const apiKey = env.SANDBOX_API_KEY ?? "";
  if (apiKey.length < 16) throw new SandboxUsageError("SANDBOX_API_KEY must be set (at least 16 characters)");
  const webhookUrl = values["webhook-url"];
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl)) throw new SandboxUsageError("--webhook-url must be an http(s) URL");
  const webhookSecrets = (env.PROVIDER_WEBHOOK_SECRET ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (webhookUrl !== undefined && webhookSecrets.length === 0) throw new SandboxUsageError("PROVIDER_WEBHOOK_SECRET must be set to push webhooks");
  return { port, host: values.host ?? "127.0.0.1", webhookUrl, apiKey, webhookSecrets };
};

/** Starts the sandbox server from flags and environment (what `domainkit sandbox` runs). */
export const runSandboxFromEnv = async (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<SandboxServer> => {
  const settings = sandboxSettingsFrom(argv, env);
  const server = await startSandboxServer({
    apiKey: settings.apiKey,
    port: settings.port,
    host: settings.host,
    ...(settings.webhookUrl === undefined ? {} : { webhooks: { url: settings.webhookUrl, secrets: settings.webhookSecrets } }),
  });
  process.stdout.write(`${JSON.stringify({ sandbox: server.url, webhooks: settings.webhookUrl ?? null })}\n`);
  return server;
};

/** Runs until SIGINT/SIGTERM, then closes the server and exits. */
export const sandboxProcess = async (argv: ReadonlyArray<string>): Promise<void> => {
  const server = await runSandboxFromEnv(argv);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  sandboxProcess(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
