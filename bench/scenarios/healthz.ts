/** GET /healthz: the host's whole middleware chain around the cheapest route, no database. */
import type { Scenario } from "../Scenario.js";

/** The liveness probe under load; compared with the empty Koa route only. */
export const healthz: Scenario = {
  name: "healthz",
  description: "GET /healthz (request id, access log, error handling, router; no database)",
  setup: async () => ({ requests: [{ method: "GET", path: "/healthz" }] }),
};
