/** Moved to adapters/payments/providers/sandbox/SandboxProvider.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/sandbox/SandboxProvider.js";
