/**
 * The contract kits of the payment module's repository ports (exported from the package's
 * `testkit` subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and
 * exports its cases (`xxxCases`); merchants, intents, attempts and refunds are written through
 * the PaymentsRepository, so every kit's ports include it.
 */
/** The records and helpers the kits build on (a namespace, so their short names cannot clash with other modules' kits). */
export * as paymentFixtures from "./fixtures.js";
export * from "./PaymentsRepositoryKit.js";
export * from "./ApiKeysKit.js";
export * from "./ProviderEventsInboxKit.js";
export * from "./WebhookEndpointsKit.js";
export * from "./ReconciliationRepositoryKit.js";
export * from "./ClientSecretsKit.js";
export * from "./DisputesKit.js";
export * from "./ProviderHealthKit.js";
export * from "./RiskHoldsKit.js";
export * from "./RiskSignalsKit.js";

import type { ApiKeys } from "../../../ports/payments/ApiKeys.js";
import type { ClientSecrets } from "../../../ports/payments/ClientSecrets.js";
import type { Disputes } from "../../../ports/payments/Disputes.js";
import type { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import type { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import type { ProviderHealthReads } from "../../../ports/payments/ProviderHealth.js";
import type { ReconciliationRepository } from "../../../ports/payments/ReconciliationRepository.js";
import type { RiskHolds } from "../../../ports/payments/RiskHolds.js";
import type { RiskSignals } from "../../../ports/payments/RiskSignals.js";
import type { WebhookEndpoints } from "../../../ports/payments/WebhookEndpoints.js";
import type { SuiteOptions } from "../Kit.js";
import { apiKeysSuite } from "./ApiKeysKit.js";
import { clientSecretsSuite } from "./ClientSecretsKit.js";
import { disputesSuite } from "./DisputesKit.js";
import { paymentsRepositorySuite } from "./PaymentsRepositoryKit.js";
import { providerEventsInboxSuite } from "./ProviderEventsInboxKit.js";
import { providerHealthSuite } from "./ProviderHealthKit.js";
import { reconciliationRepositorySuite } from "./ReconciliationRepositoryKit.js";
import { riskHoldsSuite } from "./RiskHoldsKit.js";
import { riskSignalsSuite } from "./RiskSignalsKit.js";
import { webhookEndpointsSuite } from "./WebhookEndpointsKit.js";

/** Every repository port of the payment module the kits cover (an adapter providing them all runs every kit). */
export type PaymentKitPorts = PaymentsRepository | ApiKeys | ProviderEventsInbox | WebhookEndpoints | ReconciliationRepository | ClientSecrets | Disputes | ProviderHealthReads | RiskHolds | RiskSignals;

/** Every payment kit by port name, for an adapter that provides all of {@link PaymentKitPorts}. */
export const paymentsKits: Readonly<Record<string, (options: SuiteOptions<PaymentKitPorts>) => Promise<unknown>>> = {
  PaymentsRepository: paymentsRepositorySuite,
  ApiKeys: apiKeysSuite,
  ProviderEventsInbox: providerEventsInboxSuite,
  WebhookEndpoints: webhookEndpointsSuite,
  ReconciliationRepository: reconciliationRepositorySuite,
  ClientSecrets: clientSecretsSuite,
  Disputes: disputesSuite,
  ProviderHealth: providerHealthSuite,
  RiskHolds: riskHoldsSuite,
  RiskSignals: riskSignalsSuite,
};
