/**
 * The websocket subscribers of the fan-out scenarios, run as a separate process (forked by
 * `SubscriberFleet.ts`), so the clients do not share the server's event loop and 10,000 of them
 * can be measured. It opens `count` sockets (200 upgrades at a time), subscribes each to one
 * channel, and answers the parent over IPC:
 *
 *   child  → { type: "ready" }           every socket is subscribed
 *   parent → { type: "expect", key }     wait for the event whose aggregate_id is `key` on every socket
 *   child  → { type: "expecting", key }  (the parent makes the change only after this)
 *   child  → { type: "delivered", key, arrivals }  arrival times (ms since the epoch, sub-ms) on every socket
 *   child  → { type: "failed", error }
 *
 * Times are `performance.timeOrigin + performance.now()` in both processes (one machine clock).
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

/** What the parent passes in `argv[2]` as JSON. */
export interface FleetOptions {
  readonly url: string;
  readonly token: string;
  readonly channel: string;
  readonly count: number;
}

const send = (message: unknown): void => void process.send?.(message);
const wallClock = (): number => performance.timeOrigin + performance.now();

const options = JSON.parse(process.argv[2] ?? "{}") as FleetOptions;
let expected: { key: string; arrivals: number[]; pending: Set<number> } | undefined;

const subscribe = (index: number): Promise<WebSocket> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(`${options.url.replace(/^http/, "ws")}/v1/realtime`, { headers: { authorization: `Bearer ${options.token}` } });
    socket.once("open", () => socket.send(JSON.stringify({ type: "subscribe", channel: options.channel })));
    socket.once("error", reject);
    socket.on("message", (raw) => {
      const at = wallClock();
      const message = JSON.parse(String(raw)) as { type: string; channel?: string; code?: string; event?: { aggregate_id?: string } };
      if (message.type === "subscribed" && message.channel === options.channel) resolve(socket);
      else if (message.type === "error") reject(new Error(`subscribe refused: ${message.code}`));
      else if (message.type === "event" && expected !== undefined && message.event?.aggregate_id === expected.key && expected.pending.delete(index)) {
        expected.arrivals.push(at);
        if (expected.pending.size === 0) {
          const done = expected;
          expected = undefined;
          send({ type: "delivered", key: done.key, arrivals: done.arrivals });
        }
      }
    });
  });

const main = async (): Promise<void> => {
  const sockets: WebSocket[] = [];
  for (let from = 0; from < options.count; from += 200) {
    const batch = Array.from({ length: Math.min(200, options.count - from) }, (_, i) => subscribe(from + i));
    sockets.push(...(await Promise.all(batch)));
  }
  process.on("message", (message: { type: string; key?: string }) => {
    if (message.type === "expect" && typeof message.key === "string") {
      expected = { key: message.key, arrivals: [], pending: new Set(sockets.map((_, i) => i)) };
      send({ type: "expecting", key: message.key });
    } else if (message.type === "close") {
      for (const socket of sockets) socket.terminate();
      process.exit(0);
    }
  });
  // The bench process ended (or was killed): nothing is left to measure.
  process.on("disconnect", () => process.exit(0));
  send({ type: "ready" });
};

main().catch((error: unknown) => {
  send({ type: "failed", error: String(error) });
  process.exit(1);
});
