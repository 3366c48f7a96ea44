/**
 * GET /readyz reports each dependency (database, object store, realtime bus, worker) and answers
 * 503 while a required one is down: on Postgres, cutting the database makes it 503 and bringing
 * it back makes it 200 again. /healthz stays trivial throughout.
 */
import t from "tap";
import { forEachDialectConfig, startReferenceServer, testConfig } from "../hosts/support.js";
import { cuttableDatabase } from "./support.js";

interface ReadyBody {
  readonly status?: string;
  readonly code?: string;
  readonly checks?: Record<string, { status: string; required: boolean }>;
}

const ready = async (url: string): Promise<{ status: number; body: ReadyBody; text: string }> => {
  const response = await fetch(`${url}/readyz`);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as ReadyBody, text };
};

t.test("/readyz lists every dependency with its state", (t) =>
  forEachDialectConfig(t, "readyz", async (t, config) => {
    const { server } = await startReferenceServer(t, config);
    const answer = await ready(server.url);
    t.equal(answer.status, 200);
    t.equal(answer.body.status, "ok");
    t.match(answer.body.checks, {
      database: { status: "up", required: true },
      object_store: { status: "up", required: true },
      realtime_bus: { status: "up", required: false },
      worker: { status: "up", required: false },
    });
  }),
);

t.test("/readyz answers 503 while the database is down and 200 again once it is back [postgres]", async (t) => {
  const config = await testConfig("postgres", t);
  const { proxy, port, databaseUrl } = await cuttableDatabase(t, config.databaseUrl as string);
  const { server, logText } = await startReferenceServer(t, { ...config, databaseUrl, workerInProcess: false });
  t.equal((await ready(server.url)).status, 200, "up");

  await proxy.stop();
  const down = await ready(server.url);
  t.equal(down.status, 503, "a required dependency is down");
  t.equal(down.body.code, "not_ready");
  t.match(down.body.checks, { database: { status: "down", required: true }, object_store: { status: "up" } });
  t.notMatch(down.text, /ECONNREFUSED|127\.0\.0\.1|postgres:/, "causes stay in the log");
  t.match(logText(), /dependency check failed/, "the cause is logged");
  t.equal((await fetch(`${server.url}/healthz`)).status, 200, "liveness does not depend on the database");

  await proxy.start(port);
  let answer = await ready(server.url);
  for (let i = 0; i < 50 && answer.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await ready(server.url);
  }
  t.equal(answer.status, 200, "ready again once the database is back");
  t.match(answer.body.checks, { database: { status: "up" } });
});
