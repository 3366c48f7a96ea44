/**
 * The payment module as a host sees it: routes, migrations, merchant API key authentication
 * and its ports (repository, API keys, provider). `makePaymentsModule({ provider })` lets a
 * host or a test bring its own PaymentProvider; the default is an in-process sandbox.
 */
import { Effect } from "effect";
import { paymentRoutes } from "../../adapters/koa/payments/index.js";
import { makeSandboxProvider } from "../../adapters/providers/sandbox/SandboxProvider.js";
import { looksLikeApiKey, makeSqlApiKeys } from "../../adapters/sql/payments/SqlApiKeys.js";
import { makeSqlPaymentsRepository } from "../../adapters/sql/payments/SqlPaymentsRepository.js";
import { paymentsMigrations } from "../../adapters/sql/payments/paymentsMigrations.js";
import { makeJobHandler } from "../../adapters/worker/JobRunner.js";
import { reconcileIntentJobKind } from "../../core/payments/ConfirmIntent.js";
import { authenticateApiKey, createMerchant } from "../../core/payments/Merchants.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import type { DomainRuntime } from "../Runtime.js";

/**
 * Provider status reconciliation as a durable job: resolves an intent left processing by a lost
 * answer. While the provider has not seen the reference the job fails, so the runner retries it
 * with backoff and dead-letters it after its bound (a later slice opens an exception instead).
 */
export const reconcileIntentJob = makeJobHandler({
  kind: reconcileIntentJobKind,
  run: (job) =>
    Effect.flatMap(reconcileIntent(String((job.payload as { intent_id?: unknown }).intent_id)), (result) =>
      result._tag === "NotSeenByProvider" ? Effect.fail(new Error("the provider has not seen this attempt yet")) : Effect.void,
    ),
});

/** Options of the payment module. */
export interface PaymentsModuleOptions {
  /** The provider adapter; a fresh in-process sandbox when omitted. */
  readonly provider?: PaymentProvider;
}

/** Builds the payment module's definition. */
export const makePaymentsModule = (options: PaymentsModuleOptions = {}): ModuleDefinition => {
  const provider = options.provider ?? makeSandboxProvider();
  return {
    name: "payments",
    routes: paymentRoutes,
    migrations: paymentsMigrations,
    jobHandlers: [reconcileIntentJob],
    bearerAuthenticators: [{ name: "merchant_api_key", matches: looksLikeApiKey, authenticate: authenticateApiKey }],
    ports: [
      { tag: PaymentsRepository, make: makeSqlPaymentsRepository },
      { tag: ApiKeys, make: makeSqlApiKeys },
      { tag: PaymentProvider, make: () => provider },
    ],
  };
};

/** The payment module with the in-process sandbox provider. */
export const paymentsModule: ModuleDefinition = makePaymentsModule();

/**
 * Creates a merchant with one API key on a host runtime that mounts the payment module; what
 * `domainkit merchant create --name <name> --scopes a,b` prints (the key is shown once).
 */
export const createMerchantWithKey = (
  runtime: DomainRuntime,
  input: { readonly name: string; readonly scopes: ReadonlyArray<string>; readonly actor?: string },
): Promise<{ readonly merchant_id: string; readonly key_id: string; readonly api_key: string }> =>
  runtime.runPromise(
    createMerchant({ name: input.name, scopes: input.scopes, actor: input.actor ?? "system:cli" }).pipe(
      Effect.map((created) => ({ merchant_id: created.merchant.id, key_id: created.keyId, api_key: created.apiKey })),
    ),
  );
