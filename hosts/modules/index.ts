/** Every module the reference server mounts. Business modules add themselves here. */
import type { Config } from "../Config.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import { identityModule } from "./identityModule.js";
import { makePaymentsModule } from "./paymentsModule.js";
import { makeProjectsModule } from "./projectsModule.js";
import { configuredMailer } from "../../adapters/mail/configuredMailer.js";

/** The modules of the reference server, in mount order, configured from `config`. */
export const referenceModules = (
  config: Pick<Config, "providerWebhookSecrets" | "platformOperators" | "mail" | "paymentProviderUrl" | "paymentProviderApiKey" | "paymentProviderTimeoutMs">,
): ReadonlyArray<ModuleDefinition> => [
  identityModule,
  makeProjectsModule({ mailer: configuredMailer(config.mail) }),
  makePaymentsModule({
    webhookSecret: config.providerWebhookSecrets,
    platformOperators: config.platformOperators,
    ...(config.paymentProviderUrl === undefined
      ? {}
      : { providerApi: { baseUrl: config.paymentProviderUrl, apiKey: config.paymentProviderApiKey, timeoutMs: config.paymentProviderTimeoutMs } }),
  }),
];
