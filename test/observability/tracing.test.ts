/**
 * Traces: with an exporter, one request produces the span tree HTTP request -> command ->
 * repository in one trace, and the trace id appears in the access log line and in problem+json
 * bodies; without one, nothing of the sort is added.
 */
import t from "tap";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe91";

const parentOf = (span: ReadableSpan): string | undefined =>
  (span as ReadableSpan & { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;

const post = (url: string, token: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });

t.test("one request exports the span tree HTTP request -> command -> repository in one trace", async (t) => {
  const exporter = new InMemorySpanExporter();
  const config = await testConfig("sqlite", t);
  const { server, logText } = await startReferenceServer(t, { ...config, workerInProcess: false }, { spanExporter: exporter });
  const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  const created = await post(`${server.url}/v1/workspaces`, token, { name: "Traced" });
  t.equal(created.status, 201);
  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === "POST /v1/workspaces");
  t.ok(root, "a server span named by method and route template");
  if (root === undefined) return;
  t.equal(parentOf(root), undefined, "the request span is the root");
  t.equal(root.attributes["http.response.status_code"], 201);
  const command = spans.find((s) => s.name === "Projects.createWorkspace");
  t.ok(command, "the command's span was exported");
  t.equal(command?.spanContext().traceId, root.spanContext().traceId, "in the request's trace");
  t.equal(command && parentOf(command), root.spanContext().spanId, "as the request span's child");
  const repository = spans.find((s) => s.name === "WorkspacesRepository.insertWorkspace");
  t.ok(repository, "the repository's span was exported");
  // The repository span sits below the command (possibly through further spans, e.g. a transaction).
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const ancestors: string[] = [];
  for (let current = repository; current !== undefined; current = byId.get(parentOf(current) ?? "")) ancestors.push(current.name);
  t.same(ancestors.slice(-2), ["Projects.createWorkspace", "POST /v1/workspaces"], `repository -> ... -> command -> request (${ancestors.join(" <- ")})`);
  const traceId = root.spanContext().traceId;
  t.match(logText(), new RegExp(`"trace_id":"${traceId}"`), "the access log line names the trace");
});

t.test("with tracing on, problem+json bodies carry the trace id and the request id", async (t) => {
  const exporter = new InMemorySpanExporter();
  const config = await testConfig("sqlite", t);
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false }, { spanExporter: exporter });
  const response = await fetch(`${server.url}/v1/workspaces`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  t.equal(response.status, 401);
  t.match(response.headers.get("content-type"), /^application\/problem\+json/);
  const body = (await response.json()) as { trace_id?: string; request_id?: string; code?: string };
  t.type(body.code, "string", "an ordinary problem body");
  t.equal(body.request_id, response.headers.get("x-request-id"));
  const root = exporter.getFinishedSpans().find((s) => s.name === "POST /v1/workspaces");
  t.equal(body.trace_id, root?.spanContext().traceId, "the body names the exported trace");
});

t.test("without an exporter nothing is traced: no trace id in bodies or log lines, the request id still in problems", async (t) => {
  const config = await testConfig("sqlite", t);
  const { server, logText } = await startReferenceServer(t, { ...config, workerInProcess: false });
  const response = await fetch(`${server.url}/v1/workspaces`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  t.equal(response.status, 401);
  const body = (await response.json()) as Record<string, unknown>;
  t.notOk("trace_id" in body);
  t.equal(body.request_id, response.headers.get("x-request-id"), "a problem always names its request");
  t.notMatch(logText(), /trace_id/);
});

t.test("with tracing on, the worker is traced too: a job's run is exported with the job's own span below it", async (t) => {
  const exporter = new InMemorySpanExporter();
  const config = await testConfig("sqlite", t);
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: true }, { spanExporter: exporter });
  const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  const created = await post(`${server.url}/v1/workspaces`, token, { name: "Exported" });
  t.equal(created.status, 201);
  const workspace = (await created.json()) as { id: string };
  const requested = await fetch(`${server.url}/v1/workspaces/${workspace.id}/exports`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Idempotency-Key": "export-traced-1" },
  });
  t.equal(requested.status, 202);
  const deadline = Date.now() + 15_000;
  let exportSpan: ReadableSpan | undefined;
  while (exportSpan === undefined && Date.now() < deadline) {
    exportSpan = exporter.getFinishedSpans().find((s) => s.name === "Projects.runWorkspaceExport");
    if (exportSpan === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.ok(exportSpan, "the export job's span was exported");
  if (exportSpan === undefined) return;
  const byId = new Map(exporter.getFinishedSpans().map((s) => [s.spanContext().spanId, s]));
  const ancestors: string[] = [];
  for (let current: ReadableSpan | undefined = exportSpan; current !== undefined; current = byId.get(parentOf(current) ?? "")) ancestors.push(current.name);
  t.ok(ancestors.includes("JobRunner.runJob"), `below the runner's span of the job (${ancestors.join(" <- ")})`);
  t.notOk(ancestors.some((name) => name.startsWith("POST ")), "in the worker's own trace, not the request's");
});
