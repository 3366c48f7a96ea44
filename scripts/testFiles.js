// Runs compiled node-tap test files, a few at a time, each as `node <file>` (the tap library
// prints its TAP and exits non-zero on a failure), and writes one TAP stream: each file a
// subtest, in the order they finish, then the plan and a summary line "# { total, pass, fail }"
// that adds up the files' own summaries.
//
// Why not the `tap` runner: it starts every file with a module-loading hook of its coverage
// bookkeeping (@tapjs/processinfo), which no option turns off even with coverage disabled. On
// this project's ~250 files that hook doubled the cost of loading each file's modules: about 0.9 s
// of CPU per file, a fifth of the suite (docs/decisions.md). `npx tap <file>` still runs one file.
import { spawn } from "node:child_process";

const indent = (text) =>
  text
    .split("\n")
    .map((line) => (line === "" ? "" : `    ${line}`))
    .join("\n");

/** The counts of a file's closing summary, "# { total: 12, pass: 11, fail: 1 }" (absent keys are 0). */
const summaryOf = (output) => {
  const lines = output.trimEnd().split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /^# \{ (.*total: \d+.*) \}\s*$/.exec(lines[i]);
    if (match) {
      const count = (key) => Number(new RegExp(`\\b${key}: (\\d+)`).exec(match[1])?.[1] ?? 0);
      return { total: count("total"), pass: count("pass"), fail: count("fail"), skip: count("skip"), todo: count("todo") };
    }
  }
  return undefined;
};

/**
 * Runs `files` (paths relative to `cwd`) with at most `jobs` at once; each file is killed after
 * `timeoutSeconds` (tap inside it was told the same, less a margin, to report its own timeout
 * first). Calls `write` with each piece of the TAP stream; resolves to the run's counts. An
 * aborted `abortSignal` kills the running files and starts no more.
 */
export const runTestFiles = async ({ files, cwd, env, jobs, timeoutSeconds, write, abortSignal }) => {
  const started = performance.now();
  const totals = { total: 0, pass: 0, fail: 0, skip: 0, todo: 0, failedFiles: 0 };
  const children = new Set();
  let next = 0;
  let finished = 0;
  write("TAP version 14\n");

  const runOne = (file) =>
    new Promise((resolve) => {
      const fileStarted = performance.now();
      const child = spawn(process.execPath, ["--enable-source-maps", file], {
        cwd,
        env: { ...env, TAP: "1", TAP_TIMEOUT: String(Math.max(1, timeoutSeconds - 15)) },
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.add(child);
      let output = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => (output += chunk));
      let timedOut = false;
      const killer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutSeconds * 1000);
      child.on("close", (code, signal) => {
        clearTimeout(killer);
        children.delete(child);
        const counts = summaryOf(output);
        const ok = code === 0 && counts !== undefined && counts.fail === 0;
        if (counts !== undefined) for (const key of ["total", "pass", "fail", "skip", "todo"]) totals[key] += counts[key];
        // A file that failed with no failed assertion (it crashed, exited non-zero or was killed)
        // counts as one failed test.
        if (!ok && (counts === undefined || counts.fail === 0)) {
          totals.total += 1;
          totals.fail += 1;
        }
        if (!ok) totals.failedFiles += 1;
        finished += 1;
        const time = `# time=${(performance.now() - fileStarted).toFixed(3)}ms`;
        let text = `# Subtest: ${file}\n${indent(output.endsWith("\n") || output === "" ? output : `${output}\n`)}`;
        text += `${ok ? "ok" : "not ok"} ${finished} - ${file} ${time}\n`;
        if (!ok) {
          text += `  ---\n  exitCode: ${code}\n  signal: ${signal}\n${timedOut ? `  timeout: ${timeoutSeconds * 1000}\n` : ""}  ...\n`;
        }
        write(`${text}\n`);
        resolve();
      });
    });

  const worker = async () => {
    while (next < files.length && !abortSignal?.aborted) await runOne(files[next++]);
  };
  abortSignal?.addEventListener("abort", () => {
    for (const child of children) child.kill("SIGKILL");
  });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, worker));
  write(`1..${files.length}\n`);
  const keys = ["total", "pass", "fail", "skip", "todo"].filter((key) => key === "total" || key === "pass" || totals[key] > 0);
  write(`# { ${keys.map((key) => `${key}: ${totals[key]}`).join(", ")} }\n`);
  write(`# time=${(performance.now() - started).toFixed(3)}ms\n`);
  return totals;
};
