/**
 * Start-up as an operator meets it, through the real `domainkit` binary: bad configuration is
 * one line per variable and exit 2; an unreachable database is waited for (one line per attempt)
 * and then reported in one line, exit 1; a database that comes up during the wait is used; a
 * busy port is one line too. No stack traces, and no password ever printed.
 * (Spawning is slow: this file keeps to a handful of processes, each bounded by a timeout.)
 */
import net from "node:net";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { repositoryRoot } from "../hosts/support.js";
import { createTestPostgresDatabase, type TapTest } from "../support/databases.js";
import { CuttableProxy, freePort, viaPort } from "./support.js";

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const bin = join(repositoryRoot(), "bin", "domainkit.js");

/** Runs `domainkit args` with exactly `env` (plus PATH), killing it after `timeoutMs`. */
const run = (
  t: TapTest,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  onStderr: (text: string) => void = () => undefined,
  timeoutMs = 30_000,
): Promise<Outcome> => {
  const dataDir = mkdtempSync(join(tmpdir(), "domainkit-startup-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, LOG_FORMAT: "json", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
      onStderr(stderr);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
};

const stackLine = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

t.test("bad configuration: one line per bad variable naming it, the problem and the expected form; exit 2; no stack", async (t) => {
  const outcome = await run(t, ["serve"], {
    PORT: "abc",
    DATABASE_URL: "mysql://app:hunter2@db.internal/app",
    METRICS_TOKEN: "short-secret",
    WORKER_IN_PROCESS: "sometimes",
  });
  t.equal(outcome.code, 2);
  const lines = outcome.stderr.trim().split("\n");
  t.equal(lines.length, 4, "one line per bad variable");
  t.match(lines[0], /^domainkit: configuration error: PORT="abc": not a whole number; expected a port number from 0 to 65535$/);
  t.match(lines[1], /^domainkit: configuration error: DATABASE_URL="mysql:\/\/app:\[REDACTED\]@db\.internal\/app": the scheme mysql: is not supported; expected a Postgres URL/);
  t.match(lines[2], /^domainkit: configuration error: WORKER_IN_PROCESS="sometimes": not a boolean; expected true or false/);
  t.match(lines[3], /^domainkit: configuration error: METRICS_TOKEN=<12 characters, not shown>: too short; expected a secret of at least 16 characters/);
  t.notMatch(outcome.stderr, /hunter2|short-secret/, "no secret is printed");
  t.notMatch(outcome.stderr, stackLine, "no stack trace");
  t.equal(outcome.stdout, "");
});

t.test("an unreachable database is retried with one line per attempt, then one clear line and exit 1", async (t) => {
  const port = await freePort();
  // Measured from the first attempt, so a slow process start on a busy machine does not count.
  let firstAttemptAt: number | undefined;
  const outcome = await run(t, ["migrate"], { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${port}/app`, STARTUP_DB_WAIT_SECONDS: "1" }, (text) => {
    if (firstAttemptAt === undefined && /attempt 1\)/.test(text)) firstAttemptAt = Date.now();
  });
  const endedAt = Date.now();
  t.equal(outcome.code, 1);
  const lines = outcome.stderr.trim().split("\n");
  const attempts = lines.filter((line) => /^database not reachable \(attempt \d+\): connect ECONNREFUSED/.test(line));
  t.ok(attempts.length >= 2, `retried with backoff (${attempts.length} attempt lines)`);
  t.match(lines.at(-1), new RegExp(`^domainkit: cannot start: database at postgres://app:\\[REDACTED\\]@127\\.0\\.0\\.1:${port}/app is unreachable after \\d+ attempts over 1 s: .*ECONNREFUSED.* \\(STARTUP_DB_WAIT_SECONDS=1\\)$`));
  t.equal(lines.length, attempts.length + 1, "nothing but the attempts and the verdict");
  t.notMatch(outcome.stderr, /hunter2/, "the password is redacted everywhere");
  t.notMatch(outcome.stderr, stackLine, "no stack trace");
  t.ok(firstAttemptAt !== undefined && endedAt - firstAttemptAt < 8_000, "gives up after the configured wait (1 s), not later");
});

t.test("a database that comes up during the wait is used: migrate succeeds after the retries", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const target = new URL(url);
  const proxy = new CuttableProxy({ host: target.hostname === "localhost" ? "127.0.0.1" : target.hostname, port: Number(target.port || 5432) });
  t.teardown(() => proxy.stop());
  const port = await freePort();
  // The database "comes up" once the first failed attempt has been reported.
  let firstAttempt!: () => void;
  const attempted = new Promise<void>((resolve) => (firstAttempt = resolve));
  // Applying every module's migrations from scratch takes a while on a loaded machine: the bound is generous.
  const running = run(
    t,
    ["migrate"],
    { DATABASE_URL: viaPort(url, port), STARTUP_DB_WAIT_SECONDS: "30" },
    (text) => {
      if (/attempt 1\)/.test(text)) firstAttempt();
    },
    120_000,
  );
  await Promise.race([attempted, running]);
  await proxy.start(port);
  const outcome = await running;
  t.equal(outcome.code, 0, outcome.stderr);
  t.match(JSON.parse(outcome.stdout) as { applied: string[] }, { applied: Array }, "migrations ran");
  t.match(outcome.stderr, /^database not reachable \(attempt 1\)/m, "it waited");
  t.match(outcome.stderr, /database reachable/, "and said when the database came");
});

t.test("a port already in use is one line naming HOST and PORT, exit 1", async (t) => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => busy.close(() => resolve())));
  const port = (busy.address() as net.AddressInfo).port;
  const outcome = await run(t, ["serve"], { PORT: String(port), WORKER_IN_PROCESS: "false", LOG_LEVEL: "error" });
  t.equal(outcome.code, 1);
  t.match(outcome.stderr.trim(), new RegExp(`^domainkit: cannot start: cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use \\(check HOST and PORT\\)$`));
  t.notMatch(outcome.stderr, stackLine, "no stack trace");
});
