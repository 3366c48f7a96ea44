/** Every benchmark scenario, in the order `npm run bench` runs them. Modules append theirs. */
import type { Scenario } from "../Scenario.js";
import { healthz } from "./healthz.js";
import { paymentsConfirm, paymentsCreate } from "./payments.js";
import { paymentsWebhooks } from "./paymentsWebhooks.js";
import { revokeSessions } from "./revokeSessions.js";

/** The scenario registry. */
export const scenarios: ReadonlyArray<Scenario> = [healthz, revokeSessions, paymentsCreate, paymentsConfirm, paymentsWebhooks];
