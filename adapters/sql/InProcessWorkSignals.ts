/**
 * WorkSignals within one process: a commit wakes the worker loops of this process that wait on
 * the same database. It is all SQLite needs (one process owns the file; a second process on the
 * file still finds the work by polling), and the local fan-out under the Postgres adapter.
 */
import { Effect } from "effect";
import type { WorkKind, WorkSignals } from "../../ports/WorkSignals.js";

/** One waiting loop: a pending flag (coalesced signals) and the resumer of its current wait. */
interface Waiter {
  pending: boolean;
  resume: (() => void) | undefined;
}

/** In-process signals that can also be raised directly (by a cross-process listener). */
export interface InProcessWorkSignals extends WorkSignals {
  /** Wakes every waiter of `kind` in this process now, whatever the transaction state. */
  readonly emit: (kind: WorkKind) => void;
  /** True while a loop of this process listens for `kind` (it will take work of that kind). */
  readonly listening: (kind: WorkKind) => boolean;
}

/** Defers a notice until the open transaction commits (at once outside one). */
export type DeferToCommit = (key: string, hook: () => void) => Effect.Effect<void>;

// Shared per key (the database), so every adapter instance built on one database wakes the others.
const registries = new WeakMap<object, Map<WorkKind, Set<Waiter>>>();

const registryFor = (key: object): Map<WorkKind, Set<Waiter>> => {
  let registry = registries.get(key);
  if (registry === undefined) {
    registry = new Map();
    registries.set(key, registry);
  }
  return registry;
};

const wake = (waiter: Waiter): void => {
  const resume = waiter.resume;
  if (resume === undefined) waiter.pending = true;
  else {
    waiter.resume = undefined;
    resume();
  }
};

/** Waits until `waiter` has been signalled since its last wait ended. */
const waitFor = (waiter: Waiter): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (waiter.pending) {
      waiter.pending = false;
      resume(Effect.void);
      return;
    }
    waiter.resume = () => resume(Effect.void);
    // Interrupted (the poll timer won the race): the next signal becomes pending instead.
    return Effect.sync(() => {
      waiter.resume = undefined;
    });
  });

/** WorkSignals for the loops of this process working on `key` (the database). */
export const inProcessWorkSignals = (key: object, deferToCommit: DeferToCommit): InProcessWorkSignals => {
  const registry = registryFor(key);
  const emit = (kind: WorkKind): void => {
    for (const waiter of registry.get(kind) ?? []) wake(waiter);
  };
  return {
    emit,
    listening: (kind) => (registry.get(kind)?.size ?? 0) > 0,
    notify: (kind) => deferToCommit(`work-signal:${kind}`, () => emit(kind)),
    listen: (kind) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const waiter: Waiter = { pending: false, resume: undefined };
          let waiters = registry.get(kind);
          if (waiters === undefined) {
            waiters = new Set();
            registry.set(kind, waiters);
          }
          waiters.add(waiter);
          return waiter;
        }),
        (waiter) => Effect.sync(() => void registry.get(kind)?.delete(waiter)),
      ).pipe(Effect.map(waitFor)),
  };
};
