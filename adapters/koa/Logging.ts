/**
 * Structured logs with pino (docs/conventions.md: tokens, secrets, share tokens and payment tokens
 * never appear in logs). Redaction is by path: every key in `sensitiveKeys`, at the top level
 * and up to `redactDepth` objects deep, plus the credential headers. The access log writes one
 * line per request and never the body or the raw query string.
 */
import { createRequire } from "node:module";
import type { Context, Middleware } from "koa";
import { pino, type DestinationStream, type Logger } from "pino";
import { requestIdOf } from "./RequestId.js";

/** Field names whose values are never logged, wherever they appear (up to `redactDepth`). */
export const sensitiveKeys: ReadonlyArray<string> = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "share_token",
  "secret",
  "client_secret",
  "webhook_secret",
  "password",
  "api_key",
  "apiKey",
  "payment_method",
  "card",
  "card_number",
  "cvc",
];

/** How many levels of nesting below the top the key redaction reaches. */
export const redactDepth = 4;

/** The text that replaces a redacted value. */
export const redactedText = "[REDACTED]";

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The exact pino redact paths: for each sensitive key, `key`, `*.key`, `*.*.key`, ...
 * (bracket syntax for keys such as `x-api-key`), and the request header paths.
 */
export const redactPaths: ReadonlyArray<string> = [
  ...sensitiveKeys.flatMap((key) => {
    const leaf = identifier.test(key) ? key : `["${key}"]`;
    return Array.from({ length: redactDepth + 1 }, (_, depth) => {
      const prefix = "*.".repeat(depth);
      // `*.` + `["x"]` must read `*["x"]`: bracket segments take no dot before them.
      return leaf.startsWith("[") ? prefix.replace(/\.$/, "") + leaf : prefix + leaf;
    });
  }),
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/** Route parameter names whose values are masked in the logged path (share tokens and such). */
const sensitiveParam = /token|secret|password|api_?key|payment_method|card/i;

/** Options of the logger factory. */
export interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  readonly destination?: DestinationStream;
  /**
   * `json` (one JSON object a line, the default), `pretty` (readable lines through pino-pretty)
   * or `auto`: pretty when stdout is a terminal and `production` is false, JSON otherwise.
   * The CLI passes the configured LOG_FORMAT (default auto).
   */
  readonly format?: "auto" | "pretty" | "json";
  /** NODE_ENV is production: `auto` then always means JSON. */
  readonly production?: boolean;
  /** Whether stdout is a terminal (default `process.stdout.isTTY`); for tests of `auto`. */
  readonly isTTY?: boolean;
}

/** Whether a logger with these options writes readable (pino-pretty) lines. */
export const wantsPrettyLogs = (options: Pick<LoggerOptions, "format" | "production" | "isTTY"> = {}): boolean => {
  const format = options.format ?? "json";
  if (format !== "auto") return format === "pretty";
  return (options.isTTY ?? process.stdout.isTTY === true) && options.production !== true;
};

// One line per event, as in JSON: the fields follow the message on the same line.
const prettyOptions = { colorize: true, singleLine: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" } as const;

/**
 * A pino logger with the redaction above. Redaction runs before a line is serialized, so it
 * holds in both formats; pretty lines go through pino-pretty as a transport (a worker thread).
 */
export const createLogger = (options: LoggerOptions = {}): Logger => {
  const config = {
    level: options.level ?? "info",
    name: options.name ?? "domainkit",
    redact: { paths: [...redactPaths], censor: redactedText },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const pretty = wantsPrettyLogs(options);
  if (pretty && options.destination !== undefined) {
    // In-process pretty stream to the given destination (a transport cannot write to a JS stream).
    const build = createRequire(import.meta.url)("pino-pretty") as (o: object) => DestinationStream;
    return pino(config, build({ ...prettyOptions, colorize: false, sync: true, destination: options.destination }));
  }
  if (pretty) return pino({ ...config, transport: { target: "pino-pretty", options: prettyOptions } });
  return options.destination ? pino(config, options.destination) : pino(config);
};

/** A router layer that matched the path (for another method, on a 405): it can still name the path's parameters. */
interface MatchedLayer {
  readonly captures: (path: string) => string[];
  readonly params: (path: string, captures: string[], params?: Record<string, string>) => Record<string, string>;
}

/**
 * A path segment shaped like a credential, masked even where no route names it (a 404, or a client
 * that put a secret in the wrong place): longer than any id the API issues (a UUID is 36
 * characters), or a payment client secret (`<intent id>_secret_<random>`).
 */
const credentialLikeSegment = (segment: string): boolean => segment.length > 40 || segment.includes("_secret_");

/** The parameters the path's route names: the matched route's, else those of a route that matched the path for another method (405). */
const pathParams = (ctx: Context): Record<string, string> => {
  const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  if (Object.keys(params).length > 0) return params;
  const matched = (ctx as Context & { matched?: ReadonlyArray<Partial<MatchedLayer>> }).matched ?? [];
  const named: Record<string, string> = {};
  for (const layer of matched) {
    if (typeof layer.captures !== "function" || typeof layer.params !== "function") continue;
    Object.assign(named, layer.params(ctx.path, layer.captures(ctx.path), {}));
  }
  return named;
};

/**
 * The request path with every sensitive value masked: the values of route parameters named like
 * a secret (also on a 405, where only a route for another method matched), and any segment shaped
 * like a credential, matched or not.
 */
export const loggablePath = (ctx: Context): string => {
  let path = ctx.path;
  for (const [name, value] of Object.entries(pathParams(ctx))) {
    if (!sensitiveParam.test(name) || typeof value !== "string" || value === "") continue;
    path = path.split(value).join(redactedText).split(encodeURIComponent(value)).join(redactedText);
  }
  return path
    .split("/")
    .map((segment) => (credentialLikeSegment(segment) ? redactedText : segment))
    .join("/");
};

/** Middleware: one `request` line per request (method, path, status, duration, request id). */
export const accessLog = (logger: Logger): Middleware => (ctx, next) =>
  // The level can change at run time, so it is asked per request; a disabled line costs nothing.
  logger.isLevelEnabled("info") ? logRequest(logger, ctx, next) : next();

const logRequest = async (logger: Logger, ctx: Context, next: () => Promise<unknown>): Promise<void> => {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      {
        request_id: requestIdOf(ctx),
        // Set by the tracing middleware when spans are exported (adapters/observability).
        trace_id: typeof ctx.state.traceId === "string" ? ctx.state.traceId : undefined,
        method: ctx.method,
        path: loggablePath(ctx),
        // The parsed query goes through redaction; the raw query string never is logged.
        query: Object.keys(ctx.query).length > 0 ? { ...ctx.query } : undefined,
        status: ctx.status,
        duration_ms: Math.round(durationMs * 10) / 10,
      },
      "request",
    );
  }
};
