/** Every module the reference server mounts. Business modules add themselves here. */
import type { Config } from "../Config.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import { identityModule } from "./identityModule.js";
import { makePaymentsModule } from "./paymentsModule.js";
import { projectsModule } from "./projectsModule.js";

/** The modules of the reference server, in mount order, configured from `config`. */
export const referenceModules = (config: Pick<Config, "providerWebhookSecrets" | "platformOperators">): ReadonlyArray<ModuleDefinition> => [
  identityModule,
  projectsModule,
  makePaymentsModule({ webhookSecret: config.providerWebhookSecrets, platformOperators: config.platformOperators }),
];
