/** The sandbox payment provider adapter: in-process provider, signed webhooks, settlement files, its HTTP server. */
export * from "./SandboxProvider.js";
export * from "./SandboxWebhooks.js";
export * from "./SandboxSettlementFiles.js";
export * from "./SandboxCards.js";
export * from "./SandboxWebhookPusher.js";
export * from "./SandboxServer.js";
export * from "./sandboxMain.js";
