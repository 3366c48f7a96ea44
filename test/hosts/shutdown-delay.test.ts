/**
 * SHUTDOWN_DELAY_MS: the reference server's shutdown delay (default 0). During it /readyz answers
 * 503 `draining` and requests are still served; then the server drains and closes as before.
 */
import t from "tap";
import { ConfigError, loadConfig } from "../../hosts/Config.js";
import { startReferenceServer, testConfig } from "./support.js";

t.test("SHUTDOWN_DELAY_MS is a number of milliseconds, 0 by default", async (t) => {
  t.equal(loadConfig({}).shutdownDelayMs, 0);
  t.equal(loadConfig({ SHUTDOWN_DELAY_MS: "15000" }).shutdownDelayMs, 15_000);
  t.throws(() => loadConfig({ SHUTDOWN_DELAY_MS: "soon" }), ConfigError);
  t.throws(() => loadConfig({ SHUTDOWN_DELAY_MS: "-5" }), ConfigError);
});

t.test("the reference server with SHUTDOWN_DELAY_MS answers /readyz 503 draining during the delay and serves requests [sqlite]", async (t) => {
  const config = await testConfig("sqlite", t, { SHUTDOWN_DELAY_MS: "3000" });
  const { server, logText } = await startReferenceServer(t, config);
  t.equal((await fetch(`${server.url}/readyz`)).status, 200);
  const closing = server.close();
  // The delay is running; /readyz says so at once, whatever the wall clock does.
  const readyz = await fetch(`${server.url}/readyz`);
  t.equal(readyz.status, 503);
  t.equal(((await readyz.json()) as { code?: string }).code, "draining");
  t.equal((await fetch(`${server.url}/v1/openapi.json`)).status, 200, "requests are still served");
  await closing;
  await t.rejects(fetch(`${server.url}/healthz`), "closed after the delay");
  t.match(logText(), /draining/, "the delay is logged");
});
