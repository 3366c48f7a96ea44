/**
 * Cross-process work notices sent after commit, folded together: per kind, one `pg_notify` at a
 * time and at most one per `spacingMs`; the commits that ask meanwhile are answered by one more
 * notice after that. Every commit is followed by a notice sent after it, yet a burst of commits
 * costs one notice per spacing. A worker gathers the work of signals that come closer together
 * than its gathering window (adapters/worker/Worker.ts, 25 ms) anyway.
 *
 * Why not NOTIFY inside the writing transaction: Postgres serializes the commits of notifying
 * transactions on one database-wide lock held through their commit (PreCommit_Notify), so a
 * notice in every write transaction made every write wait for every other's commit
 * (docs/decisions.md, "Work notices after commit").
 */
import type { WorkKind } from "../../ports/WorkSignals.js";

/** Sends one notice of `kind` outside any transaction; settles when it has been sent or failed. */
export type SendNotice = (kind: WorkKind) => Promise<void>;

/** Asks for a notice of `kind` to follow (all commits so far). */
export type RequestNotice = (kind: WorkKind) => void;

/** `idle`: free to send; `sending`: one notice out or its spacing not over; `again`: and another owed after it. */
type NoticeState = "idle" | "sending" | "again";

/** The smallest interval between two notices of one kind, by default. */
export const defaultNoticeSpacingMs = 10;

const spacing = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    // A pending spacing must not keep a closing process alive.
    setTimeout(resolve, ms).unref();
  });

/**
 * The coalescing sender over `send`. A failed send is dropped: the loops of other processes still
 * find the work at their next poll, as after a lost notice.
 */
export const coalescedNotices = (send: SendNotice, spacingMs = defaultNoticeSpacingMs): RequestNotice => {
  const states = new Map<WorkKind, NoticeState>();
  const sendNext = (kind: WorkKind): void => {
    states.set(kind, "sending");
    void Promise.all([send(kind).catch(() => undefined), spacing(spacingMs)]).then(() => {
      if (states.get(kind) === "again") sendNext(kind);
      else states.set(kind, "idle");
    });
  };
  return (kind) => {
    const state = states.get(kind) ?? "idle";
    if (state === "idle") sendNext(kind);
    else states.set(kind, "again");
  };
};
