/**
 * A websocket client of a host's realtime endpoint for HTTP-level tests: it keeps every message it
 * receives, and `next(test, ms)` answers the first kept message that matches, waiting up to `ms`
 * for one to arrive (undefined when none does).
 */
import WebSocket from "ws";

/** One message of the realtime protocol, as parsed JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RealtimeMessage = Record<string, any>;

/** A connected realtime client. */
export interface RealtimeClient {
  readonly socket: WebSocket;
  readonly messages: RealtimeMessage[];
  readonly next: (test: (m: RealtimeMessage) => boolean, ms?: number) => Promise<RealtimeMessage | undefined>;
  readonly send: (message: unknown) => void;
  readonly close: () => void;
}

/** Opens `/v1/realtime` on `serverUrl` with `token` and resolves once the socket is open. */
export const connectRealtimeClient = async (serverUrl: string, token: string): Promise<RealtimeClient> => {
  const socket = new WebSocket(`${serverUrl.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
  const messages: RealtimeMessage[] = [];
  const waiters: Array<() => void> = [];
  socket.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as RealtimeMessage);
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const next = async (test: (m: RealtimeMessage) => boolean, ms = 5000): Promise<RealtimeMessage | undefined> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = messages.find(test);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { socket, messages, next, send: (message) => socket.send(JSON.stringify(message)), close: () => socket.close() };
};
