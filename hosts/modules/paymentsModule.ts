/**
 * The payment module as a host sees it: the Layer of its ports (`PaymentsPorts` over the
 * database), routes, migrations, consumers, jobs and recurring jobs, merchant API key and client
 * secret authentication, and its CLI commands (paymentsCommands.ts). `makePaymentsModule({ provider })`
 * lets a host or a test bring its own PaymentProvider; the default is an in-process sandbox.
 */
import { Effect, Layer } from "effect";
import { sqlPort } from "../../adapters/sql/DatabaseLayer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeOperatorRoutes, paymentsRoutes } from "../../adapters/koa/payments/index.js";
import { makeSandboxProvider, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { makeSandboxSettlementFiles } from "../../adapters/payments/providers/sandbox/SandboxSettlementFiles.js";
import { makeSandboxWebhookReceiver } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import type { HttpProviderOptions } from "../../adapters/payments/providers/http/HttpProviderClient.js";
import { makeHttpPaymentProvider } from "../../adapters/payments/providers/http/HttpPaymentProvider.js";
import { makeHttpSettlementFiles } from "../../adapters/payments/providers/http/HttpSettlementFiles.js";
import { makeSqlProviderWebhookInbox } from "../../adapters/sql/payments/SqlProviderWebhookInbox.js";
import { makeSqlReconciliationRepository } from "../../adapters/sql/payments/SqlReconciliationRepository.js";
import { makeSqlProviderHealth } from "../../adapters/sql/payments/SqlProviderHealth.js";
import { ProviderHealthReads } from "../../ports/payments/ProviderHealth.js";
import { makeSqlRiskHolds } from "../../adapters/sql/payments/SqlRiskHolds.js";
import { makeSqlRiskSignals } from "../../adapters/sql/payments/SqlRiskSignals.js";
import { RiskHolds } from "../../ports/payments/RiskHolds.js";
import { RiskSignals } from "../../ports/payments/RiskSignals.js";
import { looksLikeApiKey, makeSqlApiKeys } from "../../adapters/sql/payments/SqlApiKeys.js";
import { makeSqlPaymentsRepository } from "../../adapters/sql/payments/SqlPaymentsRepository.js";
import { paymentsMigrations } from "../../adapters/sql/payments/migrations/index.js";
import { makeSqlClientSecrets } from "../../adapters/sql/payments/SqlClientSecrets.js";
import { makeSqlDisputes } from "../../adapters/sql/payments/SqlDisputes.js";
import { makeSqlWebhookEndpoints } from "../../adapters/sql/payments/SqlWebhookEndpoints.js";
import { makeFetchMerchantWebhookSender } from "../../adapters/payments/webhooks/FetchMerchantWebhookSender.js";
import { paymentsJobs } from "../../core/payments/Jobs.js";
import { defaultMerchantWebhookMaxAttempts, makeMerchantWebhookFanout } from "../../core/payments/MerchantWebhookFanout.js";
import { authenticateApiKey, createMerchant } from "../../core/payments/Merchants.js";
import { authenticateClientSecret, looksLikeClientSecret } from "../../core/payments/ClientView.js";
import { dailyExceptionReportRun, dailySettlementRun, scheduleNextDailyRun } from "../../core/payments/DailyRuns.js";
import { scheduleUnrecordedAnswersSweep } from "../../core/payments/UnrecordedAnswers.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { ClientSecrets } from "../../ports/payments/ClientSecrets.js";
import { Disputes } from "../../ports/payments/Disputes.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { MerchantWebhookSender } from "../../ports/payments/WebhookEndpointsSender.js";
import { defaultWebhookTargetSettings, WebhookTargetSettings } from "../../ports/payments/WebhookTargetSettings.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ProviderEventsInbox, ProviderWebhookReceiver } from "../../ports/payments/ProviderEvents.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import {
  ReconciliationSettings,
  ReconciliationSettlementFiles,
  defaultReconciliationSettings,
} from "../../ports/payments/ReconciliationSettings.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import type { HostServices } from "../PortBindings.js";
import type { ModuleRuntime } from "../PortBindings.js";
import { paymentsCommands } from "./paymentsCommands.js";

/** Options of the payment module. */
export interface PaymentsModuleOptions {
  /** The provider adapter; when omitted, `providerApi` over HTTP, else a fresh in-process sandbox. */
  readonly provider?: PaymentProvider;
  /** The provider's HTTP API (PAYMENT_PROVIDER_URL / _API_KEY / _TIMEOUT_MS): HttpPaymentProvider and HttpSettlementFiles. */
  readonly providerApi?: HttpProviderOptions;
  /** User ids of the platform operators (PLATFORM_OPERATORS); nobody when omitted. */
  readonly platformOperators?: ReadonlyArray<string>;
  /** Attempts per merchant webhook delivery before it is dead-lettered (default 8). */
  readonly merchantWebhookMaxAttempts?: number;
  /**
   * Whether merchants may register, and the worker call, plain-http endpoints on the loopback
   * interface (development and tests only; default false). The reference modules and the reference
   * server set it from NODE_ENV: on outside production, off in production.
   */
  readonly allowLoopbackHttpWebhooks?: boolean;
  /** The outgoing merchant webhook sender; fetch with a 10 s timeout when omitted. */
  readonly merchantWebhookSender?: MerchantWebhookSender;
  /** PROVIDER_WEBHOOK_SECRET; several while rotating. None: every provider webhook is refused (400). */
  readonly webhookSecret?: string | ReadonlyArray<string>;
  /** Webhook timestamp tolerance each way (default 300 s). */
  readonly webhookToleranceSeconds?: number;
  /** The ambiguity-resolution window and re-check interval (default 15 min / 1 min). */
  readonly reconciliation?: Partial<ReconciliationSettings>;
  /** Where settlement files come from; the sandbox's when the provider is the default sandbox. */
  readonly settlementFiles?: ReconciliationSettlementFiles;
}

/** The ports the payment module's Layer provides. */
export type PaymentsPorts =
  | PaymentsRepository
  | ApiKeys
  | PaymentProvider
  | ClientSecrets
  | WebhookEndpoints
  | MerchantWebhookSender
  | WebhookTargetSettings
  | Disputes
  | ProviderWebhookReceiver
  | ProviderEventsInbox
  | ReconciliationRepository
  | ProviderHealthReads
  | RiskHolds
  | RiskSignals
  | ReconciliationSettings
  | ReconciliationSettlementFiles;

/** Builds the payment module's definition. */
export const makePaymentsModule = (options: PaymentsModuleOptions = {}): ModuleDefinition<PaymentsPorts, HostServices<PaymentsPorts>> => {
  const merchantWebhookSender = options.merchantWebhookSender ?? makeFetchMerchantWebhookSender();
  const maxAttempts = options.merchantWebhookMaxAttempts ?? defaultMerchantWebhookMaxAttempts;
  const api = options.provider === undefined ? options.providerApi : undefined;
  const sandbox: SandboxProvider | undefined = options.provider === undefined && api === undefined ? makeSandboxProvider() : undefined;
  const provider: PaymentProvider = options.provider ?? (api !== undefined ? makeHttpPaymentProvider(api) : (sandbox ?? makeSandboxProvider()));
  const secrets = options.webhookSecret === undefined ? [] : typeof options.webhookSecret === "string" ? [options.webhookSecret] : [...options.webhookSecret];
  const settlementFiles =
    options.settlementFiles ??
    (api !== undefined
      ? makeHttpSettlementFiles(api)
      : sandbox !== undefined
        ? makeSandboxSettlementFiles(sandbox)
        : { fetch: () => Effect.dieMessage("no settlement file source configured") });
  const layer: Layer.Layer<PaymentsPorts, never, SqlDatabase> = Layer.mergeAll(
    sqlPort(PaymentsRepository, makeSqlPaymentsRepository),
    sqlPort(ApiKeys, makeSqlApiKeys),
    Layer.succeed(PaymentProvider, provider),
    sqlPort(ClientSecrets, makeSqlClientSecrets),
    sqlPort(WebhookEndpoints, makeSqlWebhookEndpoints),
    Layer.succeed(MerchantWebhookSender, merchantWebhookSender),
    Layer.succeed(WebhookTargetSettings, { allowLoopbackHttp: options.allowLoopbackHttpWebhooks ?? defaultWebhookTargetSettings.allowLoopbackHttp }),
    sqlPort(Disputes, makeSqlDisputes),
    Layer.sync(ProviderWebhookReceiver, () =>
      makeSandboxWebhookReceiver({
        secrets,
        ...(options.webhookToleranceSeconds === undefined ? {} : { toleranceSeconds: options.webhookToleranceSeconds }),
      }),
    ),
    sqlPort(ProviderEventsInbox, makeSqlProviderWebhookInbox),
    sqlPort(ReconciliationRepository, makeSqlReconciliationRepository),
    sqlPort(ProviderHealthReads, makeSqlProviderHealth),
    sqlPort(RiskHolds, makeSqlRiskHolds),
    sqlPort(RiskSignals, makeSqlRiskSignals),
    Layer.succeed(ReconciliationSettings, { ...defaultReconciliationSettings, ...options.reconciliation }),
    Layer.succeed(ReconciliationSettlementFiles, settlementFiles),
  );
  return {
    name: "payments",
    layer,
    routes: [...paymentsRoutes, ...makeOperatorRoutes({ operators: options.platformOperators ?? [], maxAttempts })],
    migrations: paymentsMigrations,
    consumers: [makeMerchantWebhookFanout({ maxAttempts })],
    jobHandlers: paymentsJobs,
    scheduleRecurring: (nowMs) =>
      Effect.all([scheduleNextDailyRun(dailySettlementRun, nowMs), scheduleNextDailyRun(dailyExceptionReportRun, nowMs), scheduleUnrecordedAnswersSweep(nowMs)], {
        discard: true,
      }),
    bearerAuthenticators: [
      { name: "merchant_api_key", matches: looksLikeApiKey, authenticate: authenticateApiKey },
      { name: "payment_intent_client_secret", matches: looksLikeClientSecret, authenticate: authenticateClientSecret },
    ],
    commands: paymentsCommands,
  };
};

/** The payment module with the in-process sandbox provider. */
export const paymentsModule = makePaymentsModule();

/**
 * Creates a merchant with one API key on a host runtime that mounts the payment module; what
 * `domainkit merchant create --name <name> --scopes a,b` prints (the key is shown once).
 */
export const createMerchantWithKey = (
  runtime: ModuleRuntime<PaymentsPorts>,
  input: { readonly name: string; readonly scopes: ReadonlyArray<string>; readonly actor?: string },
): Promise<{ readonly merchant_id: string; readonly key_id: string; readonly api_key: string }> =>
  runtime.runPromise(
    createMerchant({ name: input.name, scopes: input.scopes, actor: input.actor ?? "system:cli" }).pipe(
      Effect.map((created) => ({ merchant_id: created.merchant.id, key_id: created.keyId, api_key: created.apiKey })),
    ),
  );
