/**
 * A request while the database is unreachable answers 503 problem+json `service_unavailable` with
 * Retry-After (not 500 `internal_error`): the condition is a dependency's outage, transient, and
 * /readyz says so too. The cause stays in the log, whose line says it is an outage, not a bug.
 * On Postgres the connection goes through a proxy the test cuts.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import { cuttableDatabase } from "./support.js";

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly retryAfter: string | null;
  readonly text: string;
  readonly code: string | undefined;
}

const request = async (url: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> => {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${token}`, ...(init.body !== undefined ? { "Content-Type": "application/json" } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  return { status: response.status, type: response.headers.get("content-type"), retryAfter: response.headers.get("retry-after"), text, code };
};

t.test("a request while the database is unreachable answers 503 service_unavailable with Retry-After, and the log calls it an outage [postgres]", async (t) => {
  const config = await testConfig("postgres", t);
  const { proxy, port, databaseUrl } = await cuttableDatabase(t, config.databaseUrl as string);
  const { server, logText } = await startReferenceServer(t, { ...config, databaseUrl, workerInProcess: false });
  const token = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 600 });
  const created = await request(`${server.url}/v1/workspaces`, token, { method: "POST", body: { name: "before the outage" } });
  t.equal(created.status, 201, "a write while the database is up");
  const workspaceId = (JSON.parse(created.text) as { id: string }).id;

  await proxy.stop();
  const read = await request(`${server.url}/v1/workspaces/${workspaceId}`, token);
  const write = await request(`${server.url}/v1/workspaces`, token, { method: "POST", body: { name: "during the outage" } });
  for (const [what, answer] of [["a read", read], ["a write", write]] as const) {
    t.equal(answer.status, 503, `${what} answers 503`);
    t.equal(answer.code, "service_unavailable", `${what}: code service_unavailable`);
    t.match(answer.type ?? "", /^application\/problem\+json/, `${what}: problem+json`);
    t.match(answer.retryAfter ?? "", /^[1-9][0-9]*$/, `${what}: Retry-After in seconds`);
    t.notMatch(answer.text, /ECONNREFUSED|ECONNRESET|terminated|127\.0\.0\.1|postgres|internal_error/i, `${what}: the cause stays in the log`);
  }
  const log = logText();
  t.match(log, /a dependency outage, not a bug/, "the log line says it is an outage");
  t.match(log, /"dependency":"database"/, "and names the dependency");
  t.match(log, /ECONNREFUSED|terminated|ECONNRESET/, "the cause is in the log");
  t.notMatch(log, /"msg":"request failed"/, "no request is logged as a bug");

  await proxy.start(port);
  let again = await request(`${server.url}/v1/workspaces/${workspaceId}`, token);
  for (let i = 0; i < 50 && again.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    again = await request(`${server.url}/v1/workspaces/${workspaceId}`, token);
  }
  t.equal(again.status, 200, "served again once the database is back");
});
