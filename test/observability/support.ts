/** Test support for observability: scraping /metrics into numbers, and a TCP proxy that can be cut. */
import net from "node:net";
import type { AddressInfo } from "node:net";

/** A scrape: `name{a="x",b="y"}` (labels sorted) -> value. */
export type Scrape = ReadonlyMap<string, number>;

const seriesKey = (name: string, labels: Readonly<Record<string, string>> = {}): string => {
  const parts = Object.keys(labels)
    .sort()
    .map((key) => `${key}="${labels[key]}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(",")}}`;
};

/** Parses the Prometheus text format (enough of it for our metrics). */
export const parseMetrics = (text: string): Scrape => {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    series.set(seriesKey(match[1]!, labels), Number(match[3]));
  }
  return series;
};

/** The value of one series (0 when absent, as Prometheus treats a counter not yet seen). */
export const valueOf = (scrape: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): number =>
  scrape.get(seriesKey(name, labels)) ?? 0;

/** GET /metrics of `url`, parsed; fails on any status but 200. */
export const scrape = async (url: string, token?: string): Promise<Scrape> => {
  const response = await fetch(`${url}/metrics`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseMetrics(await response.text());
};

/** A TCP proxy to `target` on 127.0.0.1 that can be stopped (cutting every connection) and started again on its port. */
export class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async start(port = this.port): Promise<number> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A free port on 127.0.0.1 (nothing listens on it once this resolves). */
export const freePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

/** `url` with its port replaced (host 127.0.0.1). */
export const viaPort = (url: string, port: number): string => {
  const parsed = new URL(url);
  parsed.hostname = "127.0.0.1";
  parsed.port = String(port);
  return parsed.toString();
};

/**
 * A CuttableProxy in front of the Postgres of `databaseUrl`, listening on a port of its own:
 * `databaseUrl` is the proxied URL to give the server; `proxy.stop()` cuts the database away,
 * `proxy.start(port)` brings it back on the same port. Stopped at teardown.
 */
export const cuttableDatabase = async (t: { teardown(fn: () => unknown): void }, databaseUrl: string): Promise<{ readonly proxy: CuttableProxy; readonly port: number; readonly databaseUrl: string }> => {
  const target = new URL(databaseUrl);
  const proxy = new CuttableProxy({ host: target.hostname === "localhost" ? "127.0.0.1" : target.hostname, port: Number(target.port || 5432) });
  const port = await proxy.start(0);
  t.teardown(() => proxy.stop());
  return { proxy, port, databaseUrl: viaPort(databaseUrl, port) };
};
