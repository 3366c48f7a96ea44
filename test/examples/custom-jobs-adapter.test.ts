/** The README's second example, an in-memory Jobs + JobQueue pair, passes the jobs contract kit as an author would run it. */
import t from "tap";
import { memoryJobsLayer } from "../../examples/custom-adapter/MemoryJobs.js";
import { jobsSuite } from "../contract/index.js";

t.test("in-memory jobs and job queue (examples/custom-adapter)", (t) =>
  jobsSuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => ({ layer: memoryJobsLayer(), close: async () => undefined }),
    supports: { concurrentConnections: false },
  }),
);
