/**
 * A merchant's webhook receiver for tests: an HTTP server on 127.0.0.1 that reads each request's
 * raw body and answers the status `answer` gives it; closed at teardown. What a test records or
 * verifies is up to its `answer`.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { HasTeardown } from "../support/databases.js";

/** One POST the receiver got. */
export interface HookPost {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
}

/** Starts a receiver; answers its base URL (`http://127.0.0.1:<port>`). */
export const startHookReceiver = async (t: HasTeardown, answer: (post: HookPost) => number): Promise<string> => {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += String(chunk)));
    req.on("end", () => {
      res.statusCode = answer({ path: req.url ?? "/", headers: req.headers, raw });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
