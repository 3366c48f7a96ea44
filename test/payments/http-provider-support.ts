/**
 * Test support for the provider over HTTP: the sandbox server in-process on 127.0.0.1:0, and a
 * payments reference server whose PaymentProvider and settlement files are the HTTP adapters
 * pointed at it, with the sandbox pushing signed webhooks to that server. The worker is not
 * started in-process, so tests run jobs themselves (runJobsOnce at a chosen time).
 */
import { makeHttpPaymentProvider } from "../../adapters/payments/providers/http/HttpPaymentProvider.js";
import { makeHttpSettlementFiles } from "../../adapters/payments/providers/http/HttpSettlementFiles.js";
import { startSandboxServer, type SandboxServer, type SandboxServerOptions } from "../../adapters/payments/providers/sandbox/SandboxServer.js";
import { runJobsOnce, type JobHandler } from "../../adapters/worker/JobRunner.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";
import { at } from "../worker/fixtures.js";
import { call, freshKey } from "./support.js";

/** The sandbox API key of every test (SANDBOX_API_KEY / PAYMENT_PROVIDER_API_KEY). */
export const sandboxApiKey = "sk_sandbox_test_key_0123456789abcdef";

/** PROVIDER_WEBHOOK_SECRET of every test. */
export const providerWebhookSecret = "whsec_http_provider_test_0123456789abcdef";

/** The per-call timeout our server gives the provider in these tests: timed-out calls cost this much. */
export const providerTimeoutMs = 3_000;

/** A sandbox server closed at teardown. */
export const startTestSandbox = async (t: HasTeardown, options: Partial<SandboxServerOptions> = {}): Promise<SandboxServer> => {
  const sandbox = await startSandboxServer({
    apiKey: sandboxApiKey,
    webhookDelivery: { initialBackoffMs: 20, maxBackoffMs: 200, maxAttempts: 6, attemptTimeoutMs: 10_000 },
    // Longer than any client timeout of these tests, so a held request is a real timeout, yet
    // bounded so nothing waits on a held socket for long.
    timeoutHoldMs: 8_000,
    ...options,
  });
  t.teardown(() => sandbox.close());
  return sandbox;
};

/** A request to the sandbox API with its key (or `key`) and optional extra headers. */
export const sandboxCall = async (
  sandbox: Pick<SandboxServer, "url">,
  path: string,
  init: { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> => {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? sandboxApiKey : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(init.timeoutMs) }),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    body = {};
  }
  return { status: response.status, body, text, headers: response.headers };
};

/** Tokenizes a test card at the sandbox (what provider-hosted card fields do) and answers the token. */
export const tokenize = async (sandbox: Pick<SandboxServer, "url">, number: string): Promise<string> => {
  const answer = await sandboxCall(sandbox, "/v1/payment_methods", { body: { card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" } } });
  if (answer.status !== 200) throw new Error(`tokenization failed: ${answer.status}`);
  return String(answer.body.id);
};

/** The test cards by behaviour. */
export const cards = {
  visa: "4242424242424242",
  declined: "4000000000000002",
  authenticationRequired: "4000002500003155",
  timeoutAfter: "4000000000000119",
  timeoutBefore: "4000000000000127",
} as const;

/** The sandbox server and a payments reference server wired to it over HTTP, both torn down after the test. */
export const startWiredServers = async (t: HasTeardown, dialect: Dialect) => {
  const sandbox = await startTestSandbox(t);
  const providerOptions = { baseUrl: sandbox.url, apiKey: sandboxApiKey, timeoutMs: providerTimeoutMs };
  const config = await testConfig(dialect, t, { WORKER_IN_PROCESS: "false" });
  const { server, logText } = await startReferenceServer(t, config, {
    modules: [
      makePaymentsModule({
        provider: makeHttpPaymentProvider(providerOptions),
        settlementFiles: makeHttpSettlementFiles(providerOptions),
        webhookSecret: providerWebhookSecret,
      }),
    ],
  });
  sandbox.setWebhookEndpoint({ url: `${server.url}/v1/webhooks/provider`, secrets: [providerWebhookSecret] });
  const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "HTTP provider shop", scopes: ["payments:write", "refunds:write", "ledger:read"] });
  const db = server.core.database.db;
  const createIntent = async (body: Record<string, unknown>): Promise<string> => {
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body });
    if (created.status !== 201) throw new Error(`intent creation failed: ${created.status}`);
    return String(created.body.id);
  };
  const confirm = (id: string, token: string | undefined, idempotencyKey: string = freshKey()) =>
    call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey, body: token === undefined ? {} : { payment_method: token } });
  const read = async (id: string) => (await call(`${server.url}/v1/payment-intents/${id}`, { key })).body;
  const count = async (table: "payment_provider_events" | "payment_ledger_entries" | "payment_reconciliation_exceptions") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  /** Runs every due job of `handlers` once, as a worker would at `millis` (default now). */
  const runJobs = (handlers: ReadonlyArray<JobHandler<any>>, millis: number = Date.now()) =>
    server.core.runtime.runPromise(at(millis)(runJobsOnce(handlers, { workerId: "http-provider-test", concurrency: 1 })));
  return { sandbox, server, logText, key, db, createIntent, confirm, read, count, runJobs, tokenize: (number: string) => tokenize(sandbox, number) };
};

/** The provider reference of attempt `n` of intent `id` (ConfirmIntent's stable reference). */
export const attemptReference = (id: string, n = 1): string => `pi_${id}_attempt_${n}`;
