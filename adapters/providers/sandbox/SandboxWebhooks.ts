/** Moved to adapters/payments/providers/sandbox/SandboxWebhooks.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/sandbox/SandboxWebhooks.js";
