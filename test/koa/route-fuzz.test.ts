/**
 * Conventions, Errors: every error is a problem+json answer with a stable `code`, and a client's
 * mistake is a 4xx, never a 5xx ("a clear problem+json error for every bad input"). Read from the
 * reference server's own OpenAPI document, every operation of every module is sent malformed
 * input — unreadable, oversized, non-JSON and wrongly shaped bodies, each body field with a value
 * of another type or far too long, hostile path parameters, query values and headers — and must
 * answer 4xx problem+json.
 * On SQLite and Postgres (a value the database refuses, e.g. an out-of-range number, must be
 * caught before it gets there).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { WebSocket } from "ws";
import { defaultActionBudgets, type ActionBudgetLimit, type ActionBudgetName } from "../../adapters/koa/ActionBudgets.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { defaultLimits } from "../../adapters/koa/Limits.js";
import { merchantScopes } from "../../core/payments/model/Merchant.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, hostSecret, startReferenceServer } from "../hosts/support.js";

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean }>;
  readonly body?: { readonly properties?: Record<string, unknown> };
}

/** What each field of a body is sent as, besides its right type. */
const wrongValues: ReadonlyArray<readonly [string, unknown]> = [
  ["an object", { nested: { deeper: [1, 2, 3] } }],
  ["a nested array", [[[]]]],
  ["a 20,000-character string", "x".repeat(20_000)],
  ["a string holding NUL", "a\u0000b"],
  ["a huge number", 1e300],
  ["a negative number", -1],
  ["a fraction", 0.5],
  ["true", true],
  ["null", null],
  ["an integer past 2^63", 12345678901234567890123],
];

/** Path parameter values: each must be refused or not found, never crash a query. */
const hostilePathValues = ["%00", encodeURIComponent("../../etc/passwd"), encodeURIComponent("' OR 1=1 --"), "%F0%9F%92%A5", "x".repeat(2_000), "-1", "99999999999999999999999"];

/** Query values sent for every query parameter. */
const hostileQueryValues = ["-1", "abc", "x".repeat(5_000), "\u0000", "1e309", "[]"];

const generousBudgets = Object.fromEntries(
  Object.entries(defaultActionBudgets).map(([name, limit]) => [name, { ...limit, points: 1_000_000_000 }]),
) as Record<ActionBudgetName, ActionBudgetLimit>;

/** The document's operations, with their path, query and body parameters. */
const operationsOf = (document: { paths: Record<string, Record<string, any>> }): Operation[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        operationId: String(op.operationId ?? `${method} ${path}`),
        parameters: (op.parameters ?? []) as Operation["parameters"],
        ...(op.requestBody?.content?.["application/json"]?.schema !== undefined ? { body: op.requestBody.content["application/json"].schema } : {}),
      })),
  );

t.test("every operation answers malformed input with a 4xx problem, never a 5xx", (t) =>
  forEachDialectConfig(t, "route fuzz", async (t, config) => {
    const { server } = await startReferenceServer(t, config, {
      limits: { rateLimitPoints: 1_000_000_000, rateLimitIpPoints: 1_000_000_000 },
      actionBudgets: generousBudgets,
    });
    const token = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 3600 });
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    const operations = operationsOf(document);
    t.ok(operations.length >= 150, `the operations are read from the document (${operations.length})`);
    const failures: string[] = [];
    let sent = 0;
    const send = async (op: Operation, what: string, path: string, body?: string, extraHeaders: Record<string, string> = {}) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, "Idempotency-Key": randomUUID() };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      Object.assign(headers, extraHeaders);
      sent += 1;
      const request = () => fetch(`${server.url}${path}`, { method: op.method, headers, ...(body === undefined ? {} : { body }) });
      // A keep-alive socket the server closed as the request went out (its idle timeout, on a loaded
      // machine) is the client's transport, not an answer: sent again once on a fresh socket.
      const response = await request().catch((error: unknown) => {
        if ((error as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET") return request();
        throw error;
      });
      const text = await response.text();
      if (response.status >= 500) failures.push(`${op.operationId} ${op.method} ${op.path}, ${what}: ${response.status} ${text.slice(0, 200)}`);
      else if (response.status >= 400) {
        const problem = response.headers.get("content-type")?.startsWith("application/problem+json") === true && typeof (JSON.parse(text) as { code?: unknown }).code === "string";
        if (!problem) failures.push(`${op.operationId} ${op.method} ${op.path}, ${what}: ${response.status} is not problem+json with a code: ${text.slice(0, 200)}`);
      }
    };
    // One byte over the JSON body limit: the boundary, and every route's body must answer 413.
    const overLimitBody = JSON.stringify({ padding: "x".repeat(defaultLimits.jsonBodyBytes - '{"padding":""}'.length + 1) });
    const filled = (op: Operation, value: (name: string) => string) => op.path.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));
    for (const op of operations) {
      const validPath = filled(op, () => randomUUID());
      for (const value of hostilePathValues) {
        if (op.path.includes("{")) await send(op, `path parameters ${value.slice(0, 30)}`, filled(op, () => value), op.body === undefined ? undefined : "{}");
      }
      for (const parameter of op.parameters.filter((p) => p.in === "query")) {
        for (const value of hostileQueryValues) await send(op, `query ${parameter.name}=${value.slice(0, 30)}`, `${validPath}?${parameter.name}=${encodeURIComponent(value)}`, op.body === undefined ? undefined : "{}");
      }
      for (const [what, headers] of [
        ["an If-Match that is no ETag", { "If-Match": "garbage" }],
        ["a 300-character Idempotency-Key", { "Idempotency-Key": "k".repeat(300) }],
        ["an empty Idempotency-Key", { "Idempotency-Key": " " }],
      ] as const) {
        await send(op, what, validPath, op.body === undefined ? undefined : "{}", headers);
      }
      if (op.body === undefined) continue;
      await send(op, "a text/plain body", validPath, "reason=x", { "Content-Type": "text/plain" });
      await send(op, "a body one byte over the limit", validPath, overLimitBody);
      for (const [what, body] of [
        ["an unreadable body", "{"],
        ["an array body", "[]"],
        ["a string body", '"text"'],
        ["an empty object", "{}"],
        // Deeper than the call stack of any recursive walk (the NUL check, the idempotency hash).
        ["a body nested 10,000 levels deep", `{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`],
      ] as const) {
        await send(op, what, validPath, body);
      }
      for (const field of Object.keys(op.body.properties ?? {})) {
        for (const [what, value] of wrongValues) {
          const raw = what === "an integer past 2^63" ? `{"${field}": 12345678901234567890123}` : JSON.stringify({ [field]: value });
          await send(op, `${field} as ${what}`, validPath, raw);
        }
      }
    }
    t.ok(sent > 1_000, `malformed requests sent: ${sent}`);
    t.same(failures, [], "no malformed request answered 5xx or anything but problem+json");
  }),
);

t.test("every realtime channel kind answers hostile subscriptions with an error message and keeps the socket", (t) =>
  forEachDialectConfig(t, "realtime fuzz", async (t, config) => {
    const { server, logText } = await startReferenceServer(t, config);
    const token = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 3600 });
    const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
    t.teardown(() => socket.close());
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const answers: Array<Record<string, unknown>> = [];
    socket.on("message", (data) => answers.push(JSON.parse(String(data)) as Record<string, unknown>));
    let closed = false;
    socket.once("close", () => (closed = true));
    const kinds = ["project", "drive", "shop-order", "shop-store", "shop-fulfillment", "delivery", "courier", "restaurant", "no-such-kind"];
    const ids = ["\u0000", "x".repeat(290), "' OR 1=1 --", "💥", randomUUID()];
    const sinces = [undefined, -1, 1e300, 0.5];
    let sent = 0;
    for (const kind of kinds) {
      for (const id of ids) {
        for (const since of sinces) {
          socket.send(JSON.stringify({ type: "subscribe", channel: `${kind}:${id}`, ...(since === undefined ? {} : { since }) }));
          sent += 1;
        }
      }
    }
    const deadline = Date.now() + 10_000;
    while (answers.length < sent && Date.now() < deadline && !closed) await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(closed, false, "the socket stays open");
    t.equal(answers.length, sent, "every subscription is answered");
    const codes = new Set(answers.map((a) => `${String(a.type)}:${String(a.code)}`));
    t.same([...codes].filter((code) => !["error:not_found", "error:validation_failed"].includes(code)), [], `each answer refuses (${[...codes].join(", ")})`);
    t.notMatch(logText(), /"level":50/, "nothing was logged as an error");
  }),
);

type JsonSchema = Record<string, any>;

/** Plausible values of fields whose format the document does not show, by name. */
const byName: Readonly<Record<string, unknown>> = {
  currency: "EUR",
  payment_method: "pm_card_visa",
  email: "fuzz@example.com",
  url: "https://example.com/hook",
  country: "DE",
};

/** A value `schema` accepts as far as the document tells (refinements it does not show may still refuse it). */
const exampleOf = (schema: JsonSchema, resolve: (ref: string) => JsonSchema, depth = 0, name = ""): unknown => {
  if (depth > 6) return null;
  if (name in byName && schema.type === "string") return byName[name];
  if (name.endsWith("_id") && schema.type === "string") return randomUUID();
  if (typeof schema.$ref === "string") return exampleOf(resolve(schema.$ref), resolve, depth + 1);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) return exampleOf(schema.anyOf[0], resolve, depth + 1);
  if (Array.isArray(schema.oneOf)) return exampleOf(schema.oneOf[0], resolve, depth + 1);
  switch (schema.type) {
    case "string":
      return schema.description === "a string to be decoded into a Date" ? new Date().toISOString() : "x".repeat(Math.max(1, Number(schema.minLength ?? 1)));
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () => exampleOf(schema.items ?? {}, resolve, depth + 1));
    case "object":
      return Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([key, inner]) => [key, exampleOf(inner, resolve, depth + 1, key)]));
    default:
      return "x";
  }
};

/** Numbers a database column may not hold, for every numeric field of an otherwise plausible body. */
const outOfRangeNumbers: ReadonlyArray<readonly [string, string]> = [
  ["2^31", "2147483648"],
  ["2^53 + 2", "9007199254740994"],
  ["1e300", "1e300"],
  ["-2^31 - 1", "-2147483649"],
];

/** Paths of the numeric fields of `value` (nested objects and the first item of arrays). */
const numericPaths = (value: unknown, path: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (typeof value === "number") return [path];
  if (Array.isArray(value)) return value.length === 0 ? [] : numericPaths(value[0], [...path, 0]);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, inner]) => numericPaths(inner, [...path, key]));
  return [];
};

/** `value` as JSON text with the number at `path` written as `raw` (so integers past 2^53 travel as written). */
const withNumberAt = (value: unknown, path: ReadonlyArray<string | number>, raw: string): string => {
  const marker = "__out_of_range__";
  const copy = structuredClone(value) as any;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key];
  target[path[path.length - 1]!] = marker;
  return JSON.stringify(copy).replace(`"${marker}"`, raw);
};

t.test("a plausible body with one number out of every column's range answers 4xx, never 5xx", (t) =>
  forEachDialectConfig(t, "numbers out of range", async (t, config) => {
    const { server } = await startReferenceServer(t, config, {
      limits: { rateLimitPoints: 1_000_000_000, rateLimitIpPoints: 1_000_000_000 },
      actionBudgets: generousBudgets,
    });
    const userToken = await mintToken({ secret: hostSecret, userId: randomUUID(), ttlSeconds: 3600 });
    const merchant = await createMerchantWithKey(server.core.runtime as never, { name: "Fuzz shop", scopes: [...merchantScopes] });
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, JsonSchema> } };
    const resolve = (ref: string): JsonSchema => document.components.schemas[ref.replace("#/components/schemas/", "")] ?? {};
    const failures: string[] = [];
    let sent = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const schema = op?.requestBody?.content?.["application/json"]?.schema as JsonSchema | undefined;
        if (schema === undefined) continue;
        const body = exampleOf(schema, resolve);
        const key = (op.tags as string[] | undefined)?.includes("payments") === true ? merchant.api_key : userToken;
        const url = `${server.url}${path.replace(/\{[^}]+\}/g, () => randomUUID())}`;
        for (const field of numericPaths(body)) {
          for (const [what, raw] of outOfRangeNumbers) {
            sent += 1;
            const response = await fetch(url, {
              method: method.toUpperCase(),
              headers: { Authorization: `Bearer ${key}`, "Idempotency-Key": randomUUID(), "Content-Type": "application/json" },
              body: withNumberAt(body, field, raw),
            });
            const text = await response.text();
            if (response.status >= 500) failures.push(`${String(op.operationId)} ${method.toUpperCase()} ${path}, ${field.join(".")} = ${what}: ${response.status} ${text.slice(0, 160)}`);
          }
        }
      }
    }
    t.ok(sent > 50, `bodies sent: ${sent}`);
    t.same(failures, [], "no number out of range answered 5xx");
  }),
);
