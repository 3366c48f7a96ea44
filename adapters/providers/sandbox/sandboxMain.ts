/** Moved to adapters/payments/providers/sandbox/sandboxMain.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/sandbox/sandboxMain.js";
