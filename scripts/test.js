// `npm test` (after `pretest` built dist/): one Postgres for the whole run, every compiled
// test file under tap, then a plain "N passed, N failed" line. Exits non-zero on any failure
// or when no test ran.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const testRoot = join(root, "dist", "test");

const findTests = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.js") ? [relative(root, path)] : [];
  });

const { ensurePostgres, stopPostgres, postgresSource, redact } = await import(
  new URL("../dist/test/support/postgres.js", import.meta.url).href
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stopPostgres().catch((error) => console.error(`# could not stop Postgres: ${error}`));
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => void stop().then(() => process.exit(130)));
}

let url;
try {
  url = await ensurePostgres();
} catch (error) {
  console.error(`# no Postgres available: ${error?.stack ?? error}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
console.log(`# Postgres for this run: ${await postgresSource()} (${redact(url)})`);

const files = findTests(testRoot).sort();
const args = ["--disable-coverage", "--allow-incomplete-coverage", "-j", "3", ...process.argv.slice(2), ...files];
const tap = spawn(join(root, "node_modules", ".bin", "tap"), args, {
  cwd: root,
  env: { ...process.env, DOMAINKIT_TEST_DATABASE_URL: url },
  stdio: ["ignore", "pipe", "inherit"],
});

// tap's closing summary: "# { total: 12, pass: 11, fail: 1, ... }" (fail is absent when 0).
let summary;
let pending = "";
tap.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString("utf8");
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const match = /^# \{ (.*total: \d+.*) \}\s*$/.exec(line);
    if (match) summary = match[1];
  }
});

const code = await new Promise((resolve) => tap.on("close", (c) => resolve(c ?? 1)));
await stop();

const count = (key) => Number(new RegExp(`\\b${key}: (\\d+)`).exec(summary ?? "")?.[1] ?? 0);
const total = count("total");
const passed = count("pass");
// A runner that exited non-zero failed something even when no assertion said so (a crashed file).
const failed = Math.max(count("fail"), total - passed - count("skip") - count("todo"), code !== 0 ? 1 : 0);
if (total === 0) console.log("# no tests ran");
if (code !== 0) console.log(`# tap exited with code ${code}`);
const anyFailure = failed > 0 || total === 0 || code !== 0;
console.log(`${passed} passed, ${failed} failed`);
process.exit(anyFailure ? 1 : 0);
