/** Moved to adapters/payments/providers/sandbox/SandboxSettlementFiles.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/sandbox/SandboxSettlementFiles.js";
