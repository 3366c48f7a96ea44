/** Test support for hosts: a reference server per dialect on 127.0.0.1:0, and the repository root. */
import { existsSync, readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path, { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { Writable } from "node:stream";
import { SignJWT } from "jose";
import { createLogger } from "../../adapters/koa/Logging.js";
import { loadConfig, type Config } from "../../hosts/Config.js";
import { createServer, type ReferenceServer, type ServerOptions } from "../../hosts/ReferenceServer.js";
import type { ModuleMigrations } from "../../adapters/sql/Migrations.js";
import { sqliteFileOf } from "../../hosts/Database.js";
import { referenceModules, type ReferencePorts } from "../../hosts/modules/index.js";
import { copyMigratedSqliteDatabase } from "../support/databaseTemplates.js";
import { createTestPostgresDatabase, migratedPostgresDatabase, dialects, type Dialect, type HasTeardown, type TapTest } from "../support/databases.js";

/** The HS256 secret of every host test. */
export const hostSecret = "host-test-secret-long-enough-for-hs256-0001";

/** The repository root (the folder whose package.json is named domainkit). */
export const repositoryRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "domainkit") return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("repository root not found");
    dir = parent;
  }
};

/** The migrations of the reference server's modules (what its start applies to an empty database). */
let referenceMigrations: ReadonlyArray<ModuleMigrations> | undefined;
const referenceModuleMigrations = (): ReadonlyArray<ModuleMigrations> =>
  (referenceMigrations ??= referenceModules(loadConfig({ AUTH_JWT_SECRET: hostSecret })).modules.map((m) => ({ name: m.name, migrations: m.migrations })));

/**
 * A fresh configuration for `dialect`: a temp DATA_DIR, or a fresh Postgres database. Its database
 * is already migrated for the reference server's modules (a copy of the run's template: a server
 * start then applies nothing, which saves most of its start), unless `migrated: false` asks for an
 * empty one (tests of migrating itself).
 */
export const testConfig = async (dialect: Dialect, t: HasTeardown, env: Record<string, string> = {}, options: { readonly migrated?: boolean } = {}): Promise<Config> => {
  const dataDir = mkdtempSync(join(tmpdir(), "domainkit-host-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const migrated = options.migrated !== false;
  const databaseUrl =
    dialect === "postgres" ? await (migrated ? migratedPostgresDatabase(t, referenceModuleMigrations()) : createTestPostgresDatabase(t)) : undefined;
  if (dialect === "sqlite" && migrated) await copyMigratedSqliteDatabase(sqliteFileOf({ dataDir }), referenceModuleMigrations());
  return loadConfig({
    PORT: "0",
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: hostSecret,
    LOG_LEVEL: "info",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
};

/** A running reference server with its captured log, closed at teardown. */
export const startReferenceServer = async <P = ReferencePorts>(
  t: HasTeardown,
  config: Config,
  options: ServerOptions<P> = {},
): Promise<{ server: ReferenceServer<P>; logText: () => string }> => {
  let text = "";
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  const server = await createServer(config, { logger: createLogger({ level: "info", destination }), ...options });
  t.teardown(() => server.close());
  return { server, logText: () => text };
};

/** Runs `fn` once per dialect with a fresh configuration, as subtests `${name} [dialect]`. */
export const forEachDialectConfig = (
  t: TapTest,
  name: string,
  fn: (t: TapTest, config: Config, dialect: Dialect) => Promise<void>,
): Promise<unknown> =>
  Promise.all(dialects.map((dialect) => t.test(`${name} [${dialect}]`, async (sub) => fn(sub, await testConfig(dialect, sub), dialect))));

const execFileAsync = promisify(execFile);
// The compiled CLI beside this compiled test: the module bin/domainkit.js loads.
const cliModule = fileURLToPath(new URL("../../hosts/cli.js", import.meta.url));
const launcher = `const { main } = await import(${JSON.stringify(cliModule)}); await main(process.argv.slice(1));`;

/** The environment of a CLI process on `config`'s database. */
const cliEnvironment = (config: Config): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? "",
  DATA_DIR: config.dataDir,
  AUTH_JWT_SECRET: config.jwtSecret,
  ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}),
});

/**
 * Runs a one-off `domainkit` command with `args` against `config`'s database, in this process
 * (hosts/cli.ts `main` with its own output and exit status: the same code without a process's
 * start-up), with `env` added. Resolves stdout and stderr; a non-zero exit status rejects with
 * `code`, `stdout` and `stderr`, as a child process's would. The process entry itself is tested
 * by {@link cliProcess} and test/observability/startup.test.ts.
 */
export const cli = async (config: Config, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> => {
  let stdout = "";
  let stderr = "";
  let code = 0;
  // Loaded by the tests that run commands only (the CLI adds the sandbox provider and the command table).
  const { main } = await import("../../hosts/cli.js");
  await main(args, {
    env: { ...cliEnvironment(config), ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    exit: (status) => void (code = status),
  });
  if (code !== 0) throw Object.assign(new Error(`domainkit ${args.join(" ")} exited with ${code}: ${stderr}`), { code, stdout, stderr });
  return { stdout, stderr };
};

/** Runs the compiled `domainkit` CLI as a process with `args` against `config`'s database (stdout and stderr), with `env` added. */
export const cliProcess = (config: Config, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) =>
  execFileAsync(process.execPath, ["--input-type=module", "-e", launcher, ...args], { env: { ...cliEnvironment(config), ...env } });

/**
 * Starts a long-running CLI command (`worker`, `serve`) on `config`'s database, with `env` added;
 * stopped with SIGTERM at teardown. With `capture`, its stdout and stderr are piped (read them from
 * the child's streams).
 */
export const spawnCli = (
  t: HasTeardown,
  config: Config,
  args: ReadonlyArray<string>,
  options: { readonly env?: NodeJS.ProcessEnv; readonly capture?: boolean } = {},
): ChildProcess => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", launcher, ...args], {
    env: { ...cliEnvironment(config), ...options.env },
    stdio: options.capture === true ? ["ignore", "pipe", "pipe"] : "ignore",
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  );
  return child;
};

/** A token signed with the host's secret that expired a minute ago (issued two minutes ago). */
export const expiredToken = (userId: string, epoch: number): Promise<string> => {
  const nowSeconds = Math.floor(Date.now() / 1000);
  return new SignJWT({ epoch })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuedAt(nowSeconds - 120)
    .setExpirationTime(nowSeconds - 60)
    .sign(new TextEncoder().encode(hostSecret));
};
