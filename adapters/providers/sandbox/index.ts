/** The sandbox payment provider adapter (in-process): provider, signed webhooks, settlement files. */
export * from "./SandboxProvider.js";
export * from "./SandboxWebhooks.js";
export * from "./SandboxSettlementFiles.js";
