/** The slice of autocannon 9's API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  namespace autocannon {
    /** One request of a run; `setupRequest` may rewrite it before each send. */
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
    }
    /** Options of a run (only those used here). */
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
      warmup?: { connections?: number; duration?: number };
    }
    /** Percentiles of a histogram (latency in ms, requests per second). */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }
    /** What a run answers. */
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }
  }
  /** Runs a load test; resolves with its result when no callback is given. */
  /** The run's tracker: a promise of the result and an emitter ("start" when the counted run, after any warm-up, starts). */
  function autocannon(options: autocannon.Options): Promise<autocannon.Result> & { stop(): void; once(event: "start", listener: () => void): void };
  export default autocannon;
}
