/** The sandbox payment provider adapter (in-process). */
export * from "./SandboxProvider.js";
