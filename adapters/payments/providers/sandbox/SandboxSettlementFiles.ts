/** The sandbox's settlement files as the ReconciliationSettlementFiles port (in-process download). */
import { Effect } from "effect";
import type { ReconciliationSettlementFiles } from "../../../../ports/payments/ReconciliationSettings.js";
import type { SandboxProvider } from "./SandboxProvider.js";

/** Settlement files fetched from `sandbox`. */
export const makeSandboxSettlementFiles = (sandbox: SandboxProvider): ReconciliationSettlementFiles => ({
  fetch: (day) => Effect.sync(() => sandbox.settlementFile(day)),
});
