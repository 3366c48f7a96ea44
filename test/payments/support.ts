/**
 * Test support of the payment module: a runtime over one test database with the payment ports
 * (core-level tests), a reference server mounting the payment module with an observable
 * sandbox provider (HTTP tests), and small HTTP helpers.
 */
import "../../adapters/sql/payments/index.js";
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { storageLayer, type StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeSqlApiKeys } from "../../adapters/sql/payments/SqlApiKeys.js";
import { makeSqlPaymentsRepository } from "../../adapters/sql/payments/SqlPaymentsRepository.js";
import { makeSandboxProvider, type SandboxOptions, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { Principal } from "../../ports/Principal.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ProviderEventsInbox } from "../../ports/payments/ProviderEvents.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { ReconciliationSettings, ReconciliationSettlementFiles, defaultReconciliationSettings } from "../../ports/payments/ReconciliationSettings.js";
import { makeSqlProviderWebhookInbox } from "../../adapters/sql/payments/SqlProviderWebhookInbox.js";
import { makeSqlReconciliationRepository } from "../../adapters/sql/payments/SqlReconciliationRepository.js";
import { makeSandboxSettlementFiles } from "../../adapters/payments/providers/sandbox/SandboxSettlementFiles.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { Disputes } from "../../ports/payments/Disputes.js";
import { makeSqlDisputes } from "../../adapters/sql/payments/SqlDisputes.js";
import { makePaymentsModule, createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";

/** Every service the payment core needs. */
export type PaymentServices =
  | StoragePorts
  | PaymentsRepository
  | ApiKeys
  | PaymentProvider
  | ProviderEventsInbox
  | ReconciliationRepository
  | ReconciliationSettings
  | ReconciliationSettlementFiles
  | Disputes;

/** A runtime of the payment core over `db` with `provider`, disposed at teardown. */
export const paymentsRuntime = (t: HasTeardown, db: SqlDatabase, provider: SandboxProvider = makeSandboxProvider()) => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      storageLayer(db),
      Layer.succeed(PaymentsRepository, makeSqlPaymentsRepository(db)),
      Layer.succeed(ApiKeys, makeSqlApiKeys(db)),
      Layer.succeed(PaymentProvider, provider),
      Layer.succeed(ProviderEventsInbox, makeSqlProviderWebhookInbox(db)),
      Layer.succeed(ReconciliationRepository, makeSqlReconciliationRepository(db)),
      Layer.succeed(ReconciliationSettings, defaultReconciliationSettings),
      Layer.succeed(ReconciliationSettlementFiles, makeSandboxSettlementFiles(provider)),
      Layer.succeed(Disputes, makeSqlDisputes(db)),
    ),
  );
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
 * The payment module over a given sandbox: its provider, its settlement files and the provider
 * webhook secrets a test signs with (what a host configures from the environment).
 */
export const sandboxPaymentsModule = (provider: SandboxProvider, webhookSecrets: ReadonlyArray<string> = []) =>
  makePaymentsModule({ provider, webhookSecret: webhookSecrets, settlementFiles: makeSandboxSettlementFiles(provider) });

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
