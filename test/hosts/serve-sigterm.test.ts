/**
 * `domainkit serve` stopped the way a process manager stops it (SIGTERM) while requests are in
 * flight: it drains and exits 0, every request it answered 201 is stored and nothing it did not
 * answer is, and with LOG_FORMAT=json its shutdown is a JSON log line like the others (no plain
 * text among them). Signals and exit codes are the process's own behaviour: the server runs as a
 * process here (bounded: it is stopped at teardown if still running).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { sql } from "kysely";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { openConfiguredDatabase } from "../../hosts/Database.js";
import { hostSecret, spawnCli, testConfig } from "./support.js";

t.test("SIGTERM during in-flight writes: exit 0, every answered write stored and no other, a JSON shutdown line", async (t) => {
  const config = await testConfig("sqlite", t);
  const child = spawnCli(t, config, ["serve"], { env: { PORT: "0", LOG_FORMAT: "json", LOG_LEVEL: "info" }, capture: true });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => void (stdout += String(chunk)));
  child.stderr?.on("data", (chunk) => void (stderr += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const listening = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "domainkit listening" line: ${stdout}${stderr}`)), 60_000);
    const look = (): void => {
      const line = stdout.split("\n").find((l) => l.includes('"domainkit listening"'));
      if (line === undefined) return;
      clearTimeout(timer);
      child.stdout?.off("data", look);
      resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout?.on("data", look);
  });
  const token = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 600 });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${listening}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const workspace = (await (await post("/v1/workspaces", { name: "Drain" })).json()) as { id: string };
  const project = (await (await post(`/v1/workspaces/${workspace.id}/projects`, { name: "Drain" })).json()) as { id: string };

  // Writes in flight when the signal arrives; the ones sent after it are refused or answered.
  const writes = Array.from({ length: 40 }, (_, i) =>
    post(`/v1/projects/${project.id}/tasks`, { title: `task ${i}` }, { "idempotency-key": `drain-${i}` }).then(
      (response) => response.status,
      () => "not answered",
    ),
  );
  // The signal once the server answers the first of them: the others are being handled or queued.
  await Promise.race(writes);
  child.kill("SIGTERM");
  const statuses = await Promise.all(writes);
  const exit = await exited;
  t.same(exit, { code: 0, signal: null }, "exit code 0");
  const answered = statuses.filter((status) => status === 201).length;
  t.ok(statuses.every((status) => status === 201 || status === "not answered"), `answered 201 or not at all: ${statuses.join(",")}`);

  const database = await openConfiguredDatabase(config);
  t.teardown(() => database.close());
  const stored = await sql<{ n: number }>`SELECT count(*) AS n FROM pm_tasks WHERE project_id = ${project.id}`.execute(database.db);
  t.equal(Number(stored.rows[0]!.n), answered, `every write answered 201 is stored, and no other (${answered} answered)`);

  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  const shutdown = lines.map((line) => JSON.parse(line) as { msg?: string; signal?: string }).find((line) => line.msg === "shutting down");
  t.match(shutdown, { msg: "shutting down", signal: "SIGTERM" }, "the shutdown is a JSON log line naming the signal");
  t.notMatch(stderr, /SIGTERM: shutting down/, "no plain-text shutdown line");
});
