/**
 * Hears other processes' commits to a SQLite file: in WAL mode every commit appends to
 * `<file>-wal`, so a change to that file (inotify on Linux, FSEvents on macOS, through
 * `fs.watch` on its folder, which also sees the file created) means new rows may be due. Bursts
 * of changes are coalesced into one call per few milliseconds. A hint only: the worker still
 * polls, so a missed change costs one poll interval.
 */
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";

/** A running watch; `close` stops it. */
export interface WalWatcher {
  readonly close: () => void;
}

/** Calls `onChange` (coalesced) whenever the WAL file of `filename` changes. */
export const watchWal = (filename: string, onChange: () => void, coalesceMs = 5): WalWatcher => {
  const wal = `${basename(filename)}-wal`;
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(filename), { persistent: false }, (_event, name) => {
      if (name !== wal || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        onChange();
      }, coalesceMs);
    });
    // A watch that fails later (folder removed) degrades to polling.
    watcher.on("error", () => watcher?.close());
  } catch {
    // No watch support here: polling alone.
    watcher = undefined;
  }
  return {
    close: () => {
      if (timer !== undefined) clearTimeout(timer);
      watcher?.close();
    },
  };
};
