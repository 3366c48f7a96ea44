/**
 * Every module the reference server mounts, as one typed composition. Adding a module is adding
 * one `.add(definition)` here (docs/adding-a-module.md); the runtime's type follows.
 */
import { configuredMailer } from "../../adapters/mail/configuredMailer.js";
import { compose, type Composition } from "../Composition.js";
import type { Config } from "../Config.js";
import { makeCommerceModule, type CommercePorts } from "./commerceModule.js";
import { makeDeliveryModule, type DeliveryPorts } from "./deliveryModule.js";
import { identityModule } from "./identityModule.js";
import { makeFilesModule, type FilesPorts } from "./filesModule.js";
import { makePaymentsModule, type PaymentsPorts } from "./paymentsModule.js";
import { makeProjectsModule, type ProjectsPorts } from "./projectsModule.js";

/** The ports the reference modules provide (beyond the shared ones). */
export type ReferencePorts = ProjectsPorts | PaymentsPorts | FilesPorts | CommercePorts | DeliveryPorts;

/** The configuration the reference modules read. */
export type ReferenceModulesConfig = Pick<
  Config,
  | "providerWebhookSecrets"
  | "platformOperators"
  | "mail"
  | "paymentProviderUrl"
  | "paymentProviderApiKey"
  | "paymentProviderTimeoutMs"
  | "filesDefaultQuotaBytes"
  | "filesSecurityOperators"
  | "filesTrashRetentionDays"
  | "projectsExportRetentionDays"
  | "projectsQuarantineRetentionDays"
  | "filesChangeRetentionDays"
  | "filesAuditExportRetentionDays"
  | "delivery"
  | "commerce"
  | "production"
>;

/** The modules of the reference server, in mount order, configured from `config`. */
export const referenceModules = (config: ReferenceModulesConfig): Composition<ReferencePorts> =>
  compose()
    .add(identityModule)
    .add(
      makeProjectsModule({
        mailer: configuredMailer(config.mail),
        exportRetentionDays: config.projectsExportRetentionDays,
        quarantineRetentionDays: config.projectsQuarantineRetentionDays,
      }),
    )
    .add(
      makePaymentsModule({
        webhookSecret: config.providerWebhookSecrets,
        platformOperators: config.platformOperators,
        // Plain-http loopback merchant webhooks are for development: never in production (security audit S1).
        allowLoopbackHttpWebhooks: !config.production,
        ...(config.paymentProviderUrl === undefined
          ? {}
          : { providerApi: { baseUrl: config.paymentProviderUrl, apiKey: config.paymentProviderApiKey, timeoutMs: config.paymentProviderTimeoutMs } }),
      }),
    )
    .add(
      makeFilesModule({
        settings: {
          defaultQuotaBytes: config.filesDefaultQuotaBytes,
          securityOperators: config.filesSecurityOperators,
          trashRetentionDays: config.filesTrashRetentionDays,
          changeRetentionDays: config.filesChangeRetentionDays,
          auditExportRetentionMs: config.filesAuditExportRetentionDays * 24 * 60 * 60_000,
        },
      }),
    )
    .add(
      makeCommerceModule({
        mailer: configuredMailer(config.mail),
        // From the validated configuration, never process.env directly; no keys: the development key.
        env: {},
        ...(config.commerce.sealingKeys !== undefined ? { sealingKeys: config.commerce.sealingKeys } : {}),
        carrierWebhookSecrets: config.commerce.carrierWebhookSecrets,
        ...(config.commerce.carrierApi !== undefined ? { carrierApi: config.commerce.carrierApi } : {}),
      }),
    )
    .add(makeDeliveryModule({ prefix: "/v1/delivery", ...config.delivery }));
