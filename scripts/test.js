// `npm test` (after `pretest` built dist/): one Postgres for the whole run, every compiled
// node-tap test file, three at a time (testFiles.js; DOMAINKIT_TEST_JOBS to change), then a plain
// "N passed, N failed" line. Exits non-zero on any failure or when no test ran.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runTestFiles } from "./testFiles.js";

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

const dropTemplates = async (serverUrl) => {
  const { default: pg } = await import("pg");
  const { dropPostgresTemplates } = await import(new URL("../dist/test/support/databaseTemplates.js", import.meta.url).href);
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  // pool.end() does not wait for its client's socket to close: Postgres, stopped right after,
  // may still end that session with an error, which must not crash the run.
  admin.on("error", () => undefined);
  try {
    await dropPostgresTemplates(admin);
  } finally {
    await admin.end();
  }
};

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
// Extra arguments pick files: those whose path contains one of them (`npm test -- storage/outbox`).
const filters = process.argv.slice(2);
const picked = filters.length === 0 ? files : files.filter((file) => filters.some((filter) => file.includes(filter)));
const aborting = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => aborting.abort());

// Each failed assertion with the subtests around it and the start of its diagnostic, repeated at
// the end: CI keeps only the tail of a 20,000-line log.
const subtests = [];
const failures = [];
let diagnostic;
const telling = new Set(["fileName", "lineNumber", "found", "wanted", "compare", "pattern", "message", "code", "exitCode", "signal", "timeout"]);
const readFailure = (line) => {
  const indent = /^ */.exec(line)[0].length;
  const depth = Math.floor(indent / 4);
  if (diagnostic) {
    if (indent > diagnostic.indent) {
      // The diagnostic's telling keys (where, what was found and wanted, a crash's exit), not its stacks.
      const key = /^ *(\w+):/.exec(line)?.[1];
      if (key === "generated" || key === "stack") diagnostic.skipping = indent;
      else if (diagnostic.skipping !== undefined && indent <= diagnostic.skipping) diagnostic.skipping = undefined;
      if (diagnostic.skipping === undefined && telling.has(key) && diagnostic.lines.length < 12) diagnostic.lines.push(line.trim());
      return;
    }
    if (indent <= diagnostic.indent) diagnostic = undefined;
  }
  const subtest = /^ *# Subtest: (.*)$/.exec(line);
  if (subtest) {
    subtests.length = depth;
    subtests[depth] = subtest[1];
    return;
  }
  const notOk = /^ *not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
  if (notOk) {
    const path = [...subtests.slice(0, depth), notOk[1]].join(" > ");
    diagnostic = { indent, lines: [] };
    failures.push({ path, lines: diagnostic.lines });
  }
};

const jobs = Number(process.env.DOMAINKIT_TEST_JOBS ?? 3);
const totals = await runTestFiles({
  files: picked,
  cwd: root,
  env: { ...process.env, DOMAINKIT_TEST_DATABASE_URL: url },
  jobs,
  // As long as the slowest file may take on a busy machine (package.json "tap.timeout" for `npx tap`).
  timeoutSeconds: 240,
  abortSignal: aborting.signal,
  write: (text) => {
    process.stdout.write(text);
    for (const line of text.split("\n")) readFailure(line);
  },
});
// The migrated templates the test databases were copied from (test/support/databaseTemplates.js):
// gone with a server started here, but a DATABASE_URL server keeps them otherwise.
await dropTemplates(url).catch((error) => console.error(`# could not drop the test templates: ${error}`));
await stop();

const { total, pass: passed } = totals;
// A file that failed without a failed assertion (a crash, a timeout, a non-zero exit) fails too.
const failed = Math.max(totals.fail, total - passed - totals.skip - totals.todo, totals.failedFiles > 0 ? 1 : 0);
// A failure's parents fail with it: name only the innermost ones.
const innermost = failures.filter((f) => !failures.some((other) => other !== f && other.path.startsWith(`${f.path} > `)));
if (innermost.length > 0) {
  console.log(`# failed (${innermost.length}):`);
  for (const failure of innermost.slice(0, 20)) {
    console.log(`#   ${failure.path}`);
    for (const line of failure.lines) console.log(`#       ${line}`);
  }
}
if (total === 0) console.log("# no tests ran");
if (totals.failedFiles > 0) console.log(`# ${totals.failedFiles} of ${picked.length} test files failed`);
const anyFailure = failed > 0 || total === 0 || totals.failedFiles > 0 || aborting.signal.aborted;
console.log(`${passed} passed, ${failed} failed`);
process.exit(anyFailure ? 1 : 0);
