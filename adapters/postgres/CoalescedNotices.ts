/**
 * Cross-process work notices sent after commit, folded together: at most one `pg_notify` per kind
 * is in flight; the commits that ask while it is out are answered by one more notice after it.
 * Every commit is followed by a notice sent after it, yet a burst of commits costs one or two.
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

/** `idle`: nothing in flight; `sending`: one notice out; `again`: one out and another owed after it. */
type NoticeState = "idle" | "sending" | "again";

/**
 * The coalescing sender over `send`. A failed send is dropped: the loops of other processes still
 * find the work at their next poll, as after a lost notice.
 */
export const coalescedNotices = (send: SendNotice): RequestNotice => {
  const states = new Map<WorkKind, NoticeState>();
  const sendNext = (kind: WorkKind): void => {
    states.set(kind, "sending");
    void send(kind)
      .catch(() => undefined)
      .then(() => {
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
