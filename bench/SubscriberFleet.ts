/**
 * Websocket subscribers in a child process (`subscribers.ts`): the fan-out scenarios measure a
 * change's delivery to every subscriber without the clients competing with the server's event
 * loop, which is what lets one server be measured with 10,000 subscribers.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import type { FleetOptions } from "./subscribers.js";

/** A running fleet of subscribers of one channel. */
export interface SubscriberFleet {
  /**
   * Makes one change (`act`) that emits an event whose aggregate id is `key`, and answers each
   * subscriber's delivery latency in ms, measured from just before `act` to the event's arrival.
   */
  readonly measure: (key: string, act: () => Promise<void>, timeoutMs: number) => Promise<ReadonlyArray<number>>;
  readonly close: () => Promise<void>;
}

type FleetMessage =
  | { readonly type: "ready" }
  | { readonly type: "expecting"; readonly key: string }
  | { readonly type: "delivered"; readonly key: string; readonly arrivals: ReadonlyArray<number> }
  | { readonly type: "failed"; readonly error: string };

const script = fileURLToPath(new URL("./subscribers.js", import.meta.url));

/** Waits for the first message of the fleet that `accept` takes, or fails after `timeoutMs`. */
const nextMessage = <A>(child: ChildProcess, accept: (m: FleetMessage) => A | undefined, timeoutMs: number, what: string): Promise<A> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`))), timeoutMs);
    const onMessage = (message: FleetMessage): void => {
      if (message.type === "failed") return finish(() => reject(new Error(`subscriber process: ${message.error}`)));
      const value = accept(message);
      if (value !== undefined) finish(() => resolve(value));
    };
    const onExit = (code: number | null): void => finish(() => reject(new Error(`subscriber process exited (${code}) during ${what}`)));
    const finish = (then: () => void): void => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      then();
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });

/** Forks the subscriber process and resolves once all `count` sockets are subscribed. */
export const startSubscriberFleet = async (options: FleetOptions): Promise<SubscriberFleet> => {
  const child = fork(script, [JSON.stringify(options)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    await nextMessage(child, (m) => (m.type === "ready" ? true : undefined), 120_000, `subscribing ${options.count} sockets`);
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    measure: async (key, act, timeoutMs) => {
      const expecting = nextMessage(child, (m) => (m.type === "expecting" && m.key === key ? true : undefined), 10_000, "expect");
      child.send({ type: "expect", key });
      await expecting;
      const delivered = nextMessage(child, (m) => (m.type === "delivered" && m.key === key ? m.arrivals : undefined), timeoutMs, `delivering ${key} to ${options.count} subscribers`);
      const started = performance.timeOrigin + performance.now();
      try {
        await act();
      } catch (error) {
        delivered.catch(() => undefined);
        throw error;
      }
      const arrivals = await delivered;
      return arrivals.map((at) => at - started);
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.send({ type: "close" });
      const timer = setTimeout(() => child.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
};
