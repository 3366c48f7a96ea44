/**
 * The load generator process: runs autocannon for one measurement and reports a summary to its
 * parent over IPC, then exits. It runs in its own process so that generating load does not
 * steal the event loop of the server being measured (they share the bench process otherwise).
 */
import autocannon from "autocannon";
import type { BenchRequest } from "./Scenario.js";

/** What the parent asks for. */
export interface LoadSpec {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly requests: ReadonlyArray<BenchRequest>;
}

/** What a measurement answers. */
export interface LoadSummary {
  readonly requestsPerSecond: number;
  readonly total: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Connection errors plus timeouts. */
  readonly errors: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /** Requests sent (warm-up included) divided by the plan's length: above 1, the plan was sent again from its start. */
  readonly planPasses: number;
}

const toAutocannon = (request: BenchRequest): autocannon.Request => ({
  method: request.method,
  path: request.path,
  headers: { ...request.headers },
  ...(request.body !== undefined ? { body: request.body } : {}),
});

/** Runs one measurement in this process; `onMeasuring` is called when the warm-up is over and the counted run starts. */
export const generateLoad = async (spec: LoadSpec, onMeasuring: () => void = () => undefined): Promise<LoadSummary> => {
  const plan = spec.requests.map(toAutocannon);
  const first = plan[0];
  if (first === undefined) throw new Error("a load plan needs at least one request");
  let next = 0;
  // One plan entry is sent as is; several are rotated through, one per request sent.
  const request: autocannon.Request =
    plan.length === 1 ? first : { ...first, setupRequest: () => ({ ...(plan[next++ % plan.length] as autocannon.Request) }) };
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: 10,
    requests: [request],
    ...(spec.warmupSeconds > 0 ? { warmup: { connections: spec.connections, duration: spec.warmupSeconds } } : {}),
  });
  // The instance answered is the counted run's tracker: its "start" comes after the warm-up.
  instance.once("start", onMeasuring);
  const result = await instance;
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count])),
    planPasses: plan.length === 1 ? 0 : next / plan.length,
  };
};

// Started by runLoad.ts with an IPC channel: one spec in, "measuring" when the warm-up is over,
// one summary out, then exit.
if (process.send !== undefined && process.argv.includes("--load-generator")) {
  // The parent is gone (interrupted): nobody will read the result.
  process.once("disconnect", () => process.exit(0));
  process.once("message", (spec: LoadSpec) => {
    generateLoad(spec, () => process.send?.({ measuring: true })).then(
      (summary) => process.send?.({ ok: true, summary }, () => process.exit(0)),
      (error: unknown) => process.send?.({ ok: false, error: String(error) }, () => process.exit(1)),
    );
  });
}
