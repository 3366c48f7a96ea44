/**
 * Test support of the payment module: a runtime over one test database with the payment ports
 * (core-level tests), a reference server mounting the payment module with an observable
 * sandbox provider (HTTP tests), and small HTTP helpers.
 */
import { randomUUID } from "node:crypto";
import "../../adapters/sql/payments/index.js";
import { Cause, Effect, Exit, ManagedRuntime, Option } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeSandboxProvider, sandboxTokens, type SandboxOptions, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { Principal } from "../../ports/Principal.js";
import { makeSandboxSettlementFiles } from "../../adapters/payments/providers/sandbox/SandboxSettlementFiles.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { ReconciliationExceptionId, WebhookDeliveryId } from "../../core/payments/model/Ids.js";
import type { WebhookDelivery } from "../../core/payments/model/WebhookDelivery.js";
import type { ReconciliationException } from "../../core/payments/model/ReconciliationException.js";
import { makePaymentsModule, createMerchantWithKey, type PaymentsModuleOptions, type PaymentsPorts } from "../../hosts/modules/paymentsModule.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";

/** Every service the payment core needs: the kernel storage ports and the module's ports. */
export type PaymentServices = StoragePorts | PaymentsPorts;

/**
 * A runtime of the payment core over `db`, built from the module's definition with `provider`
 * (and its settlement files) and `options`, disposed at teardown.
 */
export const paymentsRuntime = (
  t: HasTeardown,
  db: SqlDatabase,
  provider: SandboxProvider = makeSandboxProvider(),
  options: Pick<PaymentsModuleOptions, "allowLoopbackHttpWebhooks"> = {},
) => {
  const runtime = ManagedRuntime.make(moduleLayer(db, [sandboxPaymentsModule(provider, [], options)]));
  t.teardown(() => runtime.dispose());
  return {
    provider,
    /** The runtime itself, e.g. for the in-process payment gateway. */
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E, PaymentServices>): Promise<A> => runtime.runPromise(effect),
    /** Runs and answers the typed failure (or the value) so tests can inspect error codes. */
    attempt: async <A, E>(effect: Effect.Effect<A, E, PaymentServices>): Promise<{ ok: true; value: A } | { ok: false; error: E }> => {
      const exit = await runtime.runPromiseExit(effect);
      if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
      const failure = Cause.failureOption(exit.cause);
      if (Option.isNone(failure)) throw new Error(`unexpected defect: ${Cause.pretty(exit.cause)}`);
      return { ok: false, error: failure.value };
    },
  };
};

/** A new merchant (all scopes) with an intent of `amountMinor` captured by the sandbox's succeeding card. */
export const capturedIntent = async (
  run: <A, E>(effect: Effect.Effect<A, E, PaymentServices>) => Promise<A>,
  amountMinor: number,
  currency = "EUR",
) => {
  const merchant = await newMerchant(run);
  const intent = await run(createIntent(merchant, { amountMinor, currency }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  return { merchant, intent };
};

/** All three scopes. */
export const allScopes = ["payments:write", "refunds:write", "ledger:read"];

/** Creates a merchant through the core and answers its principal with `scopes`. */
export const newMerchant = async (
  run: <A, E>(effect: Effect.Effect<A, E, PaymentServices>) => Promise<A>,
  scopes: ReadonlyArray<string> = allScopes,
): Promise<Principal & { kind: "merchant" }> => {
  const created = await run(createMerchant({ name: "Test shop", scopes, actor: "system:test" }));
  return { kind: "merchant", merchantId: created.merchant.id, keyId: created.keyId, scopes };
};

/**
 * The payment module over a given sandbox: its provider, its settlement files, the provider
 * webhook secrets a test signs with (what a host configures from the environment) and `options`.
 */
export const sandboxPaymentsModule = (
  provider: SandboxProvider,
  webhookSecrets: ReadonlyArray<string> = [],
  options: Pick<PaymentsModuleOptions, "allowLoopbackHttpWebhooks"> = {},
) => makePaymentsModule({ ...options, provider, webhookSecret: webhookSecrets, settlementFiles: makeSandboxSettlementFiles(provider) });

/** A reference server mounting only the payment module, with an observable sandbox. */
export const startPaymentsServer = async (t: HasTeardown, dialect: Dialect, sandbox: SandboxOptions = {}) => {
  const provider = makeSandboxProvider(sandbox);
  const config = await testConfig(dialect, t);
  const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider })] });
  const merchant = (scopes: ReadonlyArray<string> = allScopes) =>
    createMerchantWithKey(server.core.runtime, { name: "HTTP shop", scopes, actor: "system:test" });
  return { server, provider, logText, merchant };
};

/** A JSON request with a bearer key and (for mutations) an Idempotency-Key. */
export const call = async (
  url: string,
  init: { method?: string; key: string; idempotencyKey?: string; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers; text: string }> => {
  const headers: Record<string, string> = { Authorization: `Bearer ${init.key}` };
  if (init.idempotencyKey !== undefined) headers["Idempotency-Key"] = init.idempotencyKey;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>), headers: response.headers, text };
};

let keySeq = 0;
/** A fresh Idempotency-Key. */
export const freshKey = (): string => `test-key-${process.pid}-${++keySeq}-${Math.random().toString(36).slice(2)}`;

/** A reconciliation exception as the repository stores it: an operator's open `missing` item unless `overrides` say otherwise. */
export const anException = (overrides: Partial<ReconciliationException> = {}): ReconciliationException => ({
  id: ReconciliationExceptionId.make(randomUUID()),
  merchantId: null,
  providerObject: `pi_${randomUUID()}_attempt_1`,
  settlementWindow: "2026-11-20",
  kind: "missing",
  subjectType: "unknown",
  subjectId: null,
  expected: null,
  observed: { amount_minor: 100 },
  currency: "EUR",
  status: "open",
  resolution: null,
  openedAt: new Date(),
  resolvedAt: null,
  ...overrides,
});

/** A pending delivery of a fresh PaymentSucceeded event to `endpoint`, as the outbox consumer stores it. */
export const pendingWebhookDelivery = (endpoint: Pick<WebhookDelivery, "merchantId"> & { readonly id: WebhookDelivery["endpointId"] }): WebhookDelivery => {
  const eventId = randomUUID();
  return {
    id: WebhookDeliveryId.make(randomUUID()),
    endpointId: endpoint.id,
    merchantId: endpoint.merchantId,
    eventId,
    eventType: "PaymentSucceeded",
    body: JSON.stringify({ id: eventId, type: "PaymentSucceeded" }),
    status: "pending",
    attempts: 0,
    lastError: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
};
