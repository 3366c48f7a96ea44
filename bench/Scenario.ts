/**
 * What a benchmark scenario is: the HTTP load it sends to a running reference server, and the
 * raw baseline it is compared with (the same SQL, run directly on the driver). Modules add a
 * file under bench/scenarios/ and list it in bench/scenarios/index.ts.
 */
import type { ReferenceServer } from "../hosts/ReferenceServer.js";
import type { RawDatabase } from "./RawDatabase.js";

/** The database dialects a scenario runs on. */
export type BenchDialect = "sqlite" | "postgres";

/** A running reference server as a scenario sees it. */
export interface BenchTarget {
  readonly dialect: BenchDialect;
  /** Base URL, always on 127.0.0.1. */
  readonly url: string;
  /** The HS256 secret the server verifies tokens with (mint tokens with `mintToken`). */
  readonly jwtSecret: string;
  readonly server: ReferenceServer;
}

/** One HTTP request of a load plan. */
export interface BenchRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path and query, e.g. "/v1/sessions/revoke". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * The load of a scenario: the requests are sent round-robin across all connections, so a plan
 * with one request per user spreads writes over users (and a request is never reused while
 * another copy of it is likely still in flight when there are many more requests than connections).
 */
export interface LoadPlan {
  readonly requests: ReadonlyArray<BenchRequest>;
  /**
   * Each request does its work once (a confirm, a webhook's capture, a checkout): sent again past
   * the plan's end it is a replay, cheaper than the work measured. The run then says how far past
   * the end it went (metric `planPasses`, warned on stderr above 1): size the plan for the warm-up
   * and the measurement at the fastest rate expected.
   */
  readonly consumable?: boolean;
  /** Figures measured during setup, reported with the row and in the JSON results (e.g. latency ms). */
  readonly metrics?: Readonly<Record<string, number>>;
  /**
   * Runs beside the HTTP load: started just before it, `stop()` is called once the load ended,
   * and the figures it answers join the row's metrics (e.g. realtime latency while writes run).
   */
  readonly during?: () => {
    /** `answered`: the 2xx answers of the load (undefined when the load failed). */
    readonly stop: (answered: number | undefined) => Promise<Readonly<Record<string, number>>>;
  };
}

/** How long and how wide a raw baseline loop may run. */
export interface RawBounds {
  /** Wall-clock budget of the loop. */
  readonly durationMs: number;
  /** Hard cap on operations, so a very fast loop also ends. */
  readonly maxOps: number;
  /** Parallel lanes: 1 on SQLite (one synchronous connection), the HTTP connection count on Postgres. */
  readonly concurrency: number;
  /** The HTTP connection count of the same run (e.g. to size a user population alike). */
  readonly connections: number;
  /** Runs right before each operation (on SQLite: commits the server's open groups on the file, see run.ts). */
  readonly beforeOp?: () => void;
}

/** What a raw baseline measured. */
export interface RawMeasurement {
  readonly opsPerSecond: number;
  readonly ops: number;
  /** CPU time of this process per operation (ms): the driver's side of the work. */
  readonly cpuMsPerOp?: number;
  /** What one operation is, for the report (e.g. "BEGIN; upsert user_epochs; COMMIT"). */
  readonly label: string;
}

/** A benchmark scenario. */
export interface Scenario {
  /** CLI name (`--scenario <name>`), kebab-case. */
  readonly name: string;
  /** One line: what is measured. */
  readonly description: string;
  /** Prepares data on the running server and answers the requests to send. */
  readonly setup: (target: BenchTarget, options: { readonly connections: number }) => Promise<LoadPlan>;
  /**
   * The same SQL the scenario's write performs, run directly on the driver (no HTTP, no Effect),
   * in a loop bounded by `bounds`. Omitted by scenarios that touch no database; those are
   * compared with the empty Koa route only.
   */
  readonly rawBaseline?: (db: RawDatabase, bounds: RawBounds) => Promise<RawMeasurement>;
  /**
   * A read whose answer is large: after the HTTP run, the empty Koa route is measured again
   * answering the bytes this scenario's first request answered (metrics `sameBodyFloorReqPerS`,
   * `bodyBytes`, `vsSameBodyFloor`), the ceiling any server answering that page has here.
   */
  readonly sameBodyFloor?: boolean;
}
