/**
 * A realtime upgrade while the database is unreachable answers as HTTP does: 503
 * `service_unavailable` with Retry-After, not 401 `invalid_token` counted as a failed authentication.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { WebSocket } from "ws";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import { cuttableDatabase } from "./support.js";

t.test("a realtime upgrade while the database is unreachable answers 503 service_unavailable with Retry-After, as HTTP does [postgres]", async (t) => {
  const config = await testConfig("postgres", t);
  const { proxy, databaseUrl } = await cuttableDatabase(t, config.databaseUrl as string);
  const { server } = await startReferenceServer(t, { ...config, databaseUrl, workerInProcess: false });
  const token = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 600 });
  await proxy.stop();
  const refusal = await new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve) => {
    const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"] as string | undefined, body });
        socket.terminate();
      });
    });
    socket.once("open", () => {
      resolve({ status: 101, retryAfter: undefined, body: "" });
      socket.close();
    });
    socket.once("error", () => undefined);
  });
  const http = await fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${token}` } });
  const httpCode = ((await http.json()) as { code?: string }).code;
  t.equal(refusal.status, 503);
  t.equal((JSON.parse(refusal.body) as { code?: string }).code, httpCode, "the upgrade's code is HTTP's");
  t.equal(httpCode, "service_unavailable");
  t.match(refusal.retryAfter ?? "", /^[1-9][0-9]*$/, "with Retry-After");
});
