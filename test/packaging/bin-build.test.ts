/**
 * The `domainkit` bin compiles only in a source checkout. An installed package ships dist/ and no
 * tsconfig.json: there, a missing build is reported in one line, never by running `npm run build`
 * inside node_modules (which needs the consumer's tsc and compiles every test of the repository).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { findRepoRoot } from "../architecture/dependencyRule.js";
import type { TapTest } from "../support/databases.js";

const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** A package folder holding a copy of the real bin, whose `build` script leaves a marker and a CLI that prints its arguments. */
const packageWithBin = (t: TapTest, files: { readonly tsconfig: boolean }) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-bin-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "bin"));
  copyFileSync(join(root, "bin", "domainkit.js"), join(dir, "bin", "domainkit.js"));
  const build = [
    'const fs = require("node:fs");',
    'fs.writeFileSync("build-ran", "");',
    'fs.mkdirSync("dist/hosts", { recursive: true });',
    'fs.writeFileSync("dist/hosts/cli.js", "export const main = async (args) => console.log(\\"cli \\" + args.join(\\" \\"));\\n");',
  ].join(" ");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "domainkit", type: "module", scripts: { build: `node -e '${build}'` } }));
  if (files.tsconfig) writeFileSync(join(dir, "tsconfig.json"), "{}\n");
  return dir;
};

const runBin = (dir: string) => spawnSync(process.execPath, [join(dir, "bin", "domainkit.js"), "--help"], { cwd: dir, encoding: "utf8", timeout: 60_000 });

t.test("an installed package without dist/ says so in one line and builds nothing", async (t) => {
  const dir = packageWithBin(t, { tsconfig: false });
  const run = runBin(dir);
  t.equal(run.status, 1, "exits 1");
  t.notOk(existsSync(join(dir, "build-ran")), "npm run build was not run");
  t.equal(run.stderr.trim().split("\n").length, 1, `one line: ${run.stderr}`);
  t.match(run.stderr, /dist\/hosts\/cli\.js is missing/, "names the missing file");
  t.notMatch(run.stderr, /\n\s+at /, "no stack trace");
});

t.test("a source checkout without dist/ builds once, then runs the CLI", async (t) => {
  const dir = packageWithBin(t, { tsconfig: true });
  const run = runBin(dir);
  t.equal(run.status, 0, run.stderr);
  t.ok(existsSync(join(dir, "build-ran")), "npm run build ran");
  t.match(run.stdout, /^cli --help$/m, "then the CLI ran with the arguments");
});

t.test("the repository's bin is the one an installed package runs", async (t) => {
  // The copies above run the real file: it must be where package.json's bin points.
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { readonly bin: Readonly<Record<string, string>> };
  t.same(manifest.bin, { domainkit: "bin/domainkit.js" });
});
