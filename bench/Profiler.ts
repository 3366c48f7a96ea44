/**
 * `--profile <dir>`: a V8 CPU profile of this process (the server, its worker loops and the
 * bench's own bookkeeping) during one scenario's HTTP run only, written as
 * `<dir>/<scenario>-<db>.cpuprofile` (open it in Chrome DevTools or speedscope). The load
 * generator runs in its own process and is not in it; setup, the floor and the raw loop are not
 * either. Sampling costs a few percent of CPU: compare profiled runs only with profiled runs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

/** A started profile; `stop` writes it and answers its path. */
export interface RunningProfile {
  readonly stop: () => Promise<string>;
}

/** Starts sampling this process; the file is named after the scenario and the database. */
export const startProfile = async (dir: string, name: string): Promise<RunningProfile> => {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return {
    stop: async () => {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return path;
    },
  };
};
