// Installs domainkit the way a user does and tries what a user tries (online: needs the npm
// registry; a few minutes, most of it building better-sqlite3). Not part of `npm test`.
//
//   node scripts/check-packed-install.js [--tarball domainkit-x.y.z.tgz] [--keep]
//
// Without --tarball it runs `npm pack` here first (with its lifecycle scripts, as `npm publish`
// would). Then, in a fresh project under the system temp dir: `npm install <tarball>`, an import
// of every `exports` subpath, a NodeNext TypeScript consumer of every subpath type-checked with
// skipLibCheck off, `npx domainkit --help`, `npx domainkit serve` on SQLite until /healthz answers,
// and examples/embedding/app.ts copied as is, compiled and run against the installed package.
// Prints one line per check and exits 1 when any failed.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const keep = args.includes("--keep");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const results = [];
const record = (name, ok, detail = "") => {
  results.push({ name, ok });
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`);
};
const firstLines = (text, n = 3) => String(text).trim().split("\n").slice(0, n).join(" | ");
const run = (command, commandArgs, options) => execFileSync(command, commandArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });

const dir = mkdtempSync(join(tmpdir(), "domainkit-consumer-"));
let tarball;
const tarballAt = args.indexOf("--tarball");
if (tarballAt >= 0) tarball = resolve(args[tarballAt + 1]);
else {
  console.log("# npm pack (runs prepack / prepare)");
  const [report] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: root, stdio: ["ignore", "pipe", "inherit"] }));
  tarball = join(dir, report.filename);
}

const app = join(dir, "app");
mkdirSync(app);
writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
console.log(`# npm install ${tarball} in ${app}`);
const started = Date.now();
try {
  run("npm", ["install", tarball, `typescript@${manifest.devDependencies.typescript}`, `@types/node@${manifest.devDependencies["@types/node"]}`, "--no-audit", "--no-fund"], { cwd: app });
  record("npm install of the tarball", true, `${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  record("npm install of the tarball", false, firstLines(error.stderr, 10));
  process.exit(1);
}

const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== "./package.json");
for (const subpath of subpaths) {
  const name = `domainkit${subpath.slice(1)}`;
  try {
    const out = run(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).length)`], { cwd: app });
    record(`import ${name}`, Number(out) > 0, `${out.trim()} exports`);
  } catch (error) {
    record(`import ${name}`, false, firstLines(error.stderr));
  }
}

writeFileSync(
  join(app, "consumer.ts"),
  subpaths.map((subpath, i) => `import * as m${i} from "domainkit${subpath.slice(1)}";`).join("\n") + `\nexport const all = [${subpaths.map((_, i) => `m${i}`).join(", ")}];\n`,
);
mkdirSync(join(app, "embedding"));
copyFileSync(join(root, "examples", "embedding", "app.ts"), join(app, "embedding", "app.ts"));
writeFileSync(
  join(app, "embedding", "smoke.ts"),
  `import { startEmbeddingExample } from "./app.js";
const example = await startEmbeddingExample({ filename: process.argv[2]!, port: 0 });
const hello = await (await fetch(example.url + "/hello")).json();
const created = await fetch(example.url + "/v1/workspaces", {
  method: "POST",
  headers: { "Content-Type": "application/json", "X-User-Id": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" },
  body: JSON.stringify({ name: "Acme" }),
});
console.log(JSON.stringify({ hello, status: created.status }));
await example.close();
`,
);
const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: ["node"], skipLibCheck: false, outDir: "out" };
writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["consumer.ts", "embedding"] }, null, 2));
try {
  run("npx", ["tsc", "-p", "."], { cwd: app });
  record("tsc (NodeNext, skipLibCheck off) of every subpath and of examples/embedding/app.ts", true);
} catch (error) {
  const errors = String(error.stdout).split("\n").filter((line) => line.includes("error TS"));
  record("tsc (NodeNext, skipLibCheck off) of every subpath and of examples/embedding/app.ts", false, `${errors.length} errors: ${errors.slice(0, 5).join(" | ")}`);
}
try {
  const out = run(process.execPath, [join("out", "embedding", "smoke.js"), join(dir, "embedding.sqlite")], { cwd: app, timeout: 60_000 });
  const { hello, status } = JSON.parse(out.trim().split("\n").pop());
  record("examples/embedding/app.ts against the installed package", hello?.hello === "from the host app" && status === 201, out.trim());
} catch (error) {
  record("examples/embedding/app.ts against the installed package", false, firstLines(error.stderr ?? error.message));
}

try {
  const out = run("npx", ["domainkit", "--help"], { cwd: app, timeout: 60_000 });
  record("npx domainkit --help", /Usage: domainkit/.test(out), firstLines(out, 1));
} catch (error) {
  record("npx domainkit --help", false, firstLines(error.stderr, 6));
}

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
const port = await freePort();
const dataDir = join(dir, "data");
const server = spawn("npx", ["domainkit", "serve"], {
  cwd: app,
  env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, AUTH_JWT_SECRET: "consumer-check-secret-0123456789abcdef" },
  stdio: ["ignore", "ignore", "pipe"],
  detached: true,
});
let stderr = "";
server.stderr.on("data", (chunk) => (stderr += chunk));
const exited = new Promise((done) => server.once("exit", (code, signal) => done({ code, signal })));
let healthy = false;
for (let i = 0; i < 60 && !healthy && server.exitCode === null; i++) {
  await new Promise((r) => setTimeout(r, 500));
  healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
}
if (server.exitCode === null) process.kill(-server.pid, "SIGTERM");
const end = await exited;
record("npx domainkit serve (SQLite) answers /healthz", healthy, healthy ? `stopped with ${end.code ?? end.signal}` : firstLines(stderr, 6));

const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed${keep ? ` (kept ${dir})` : ""}`);
if (!keep) rmSync(dir, { recursive: true, force: true });
process.exitCode = failed === 0 ? 0 : 1;
