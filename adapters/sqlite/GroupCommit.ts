/**
 * Group commit on SQLite's single write connection. A COMMIT writes every page its transaction
 * dirtied to the WAL, and most of that cost does not grow with the number of rows (the same
 * table and index pages take every insert), so transactions that queue for the write connection
 * share one COMMIT: when a transaction ends and the next holder waiting is another transaction,
 * the open transaction stays open and the next one runs inside it behind a savepoint of its own.
 *
 * - A member's success is reported only once the group's COMMIT has succeeded: nobody is told a
 *   write happened before it is durable and visible to other connections.
 * - A member that fails is rolled back to its savepoint: the other members are not affected.
 * - A COMMIT that fails (I/O error, a full disk, a deferred constraint) fails every member of the
 *   group, and nothing of the group is written.
 * - Anything else waiting for the connection (an autocommit statement, a pinned connection, a
 *   migration) ends the group first: it never runs inside another caller's open transaction.
 *   (Making autocommit writes one-statement members was measured: no gain in alternated runs.)
 * - A group is bounded by its number of members and by how long its transaction stays open.
 * - The first member of a group needs no savepoint: when it fails, nothing else is in the
 *   transaction, which is rolled back whole. A transaction alone costs what it did before.
 * - A group holds SQLite's write lock across a turn of the event loop. Another connection of the
 *   same process to the same file would wait for that lock synchronously (the busy timeout blocks
 *   the event loop that is to COMMIT the group), so before such a connection writes, the open
 *   groups of this process on the file are committed (`settleOthers`; an embedder's own handle
 *   calls `settleOpenGroups(file)` before it writes). Another process just waits.
 */
import { resolve } from "node:path";
import type { WriterMutex } from "./WriterMutex.js";

/** The write connection, as the group commit uses it. */
export interface GroupCommitConnection {
  /** Runs a statement without results (BEGIN IMMEDIATE, SAVEPOINT, COMMIT, ROLLBACK). */
  readonly run: (sql: string) => void;
  /** True while a transaction is open on the connection (SQLite can roll one back by itself). */
  readonly inTransaction: () => boolean;
}

/** Bounds of one group; `maxMembers: 1` turns group commit off. */
export interface GroupCommitLimits {
  /** At most this many transactions share a COMMIT (default 16). */
  readonly maxMembers: number;
  /** No transaction joins a group open longer than this (default 5 ms). */
  readonly maxOpenMs: number;
}

export const defaultGroupCommitLimits: GroupCommitLimits = { maxMembers: 16, maxOpenMs: 5 };

/** A member whose work is done, waiting for the group's COMMIT. */
interface Committed {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const memberSavepoint = "dk_group_member";

/** The open groups of this process, per database file (see `settleOthers`). */
const openGroups = new Map<string, Set<GroupCommit>>();

/** COMMITs the groups held open on `file` that nobody holds now, but `except`'s. */
const settleGroups = (file: string, except?: GroupCommit): void => {
  for (const group of openGroups.get(file) ?? []) if (group !== except) group.settle();
};

/**
 * For a better-sqlite3 handle of the embedder's own on a file `openSqlite` also has open in this
 * process: call it right before that handle writes (synchronously, in the same turn of the event
 * loop). It commits the groups this process holds open on `file`, which otherwise keep the write
 * lock until the end of the turn, so the handle's BEGIN would wait out its busy timeout on the
 * very event loop that is to commit them. A transaction a caller holds open across an `await`
 * still holds the lock, as any open transaction does.
 */
export const settleOpenGroups = (file: string): void => settleGroups(resolve(file));

export class GroupCommit {
  /** The members waiting for the open transaction's COMMIT; undefined while none is open. */
  private committed: Array<Committed> | undefined;
  /** When the open transaction began (performance.now()). */
  private openedAt = 0;
  /** The holder runs behind a savepoint of the open transaction (it joined a group). */
  private joined = false;
  /** A member holds the connection now (or was handed it); else an open transaction waits for its COMMIT. */
  private holding = false;
  private flushScheduled = false;

  constructor(
    private readonly connection: GroupCommitConnection,
    private readonly mutex: WriterMutex,
    private readonly limits: GroupCommitLimits = defaultGroupCommitLimits,
    /** The database file (absolute path); undefined for a database no other connection can open. */
    private readonly file?: string,
  ) {}

  /**
   * Commits the groups other connections of this process hold open on the same file, so that a
   * write on this connection does not wait for their lock on a blocked event loop. (A group whose
   * member is mid-transaction across an await still holds the lock, as any such transaction does.)
   */
  settleOthers(): void {
    if (this.file !== undefined) settleGroups(this.file, this);
  }

  /**
   * Takes the connection for a transaction now when it is free, or when an open group waits for
   * its COMMIT and nobody holds it (the transaction joins the group).
   */
  tryTake(): boolean {
    if (this.committed !== undefined && !this.holding) return (this.holding = true);
    if (!this.mutex.tryLock()) return false;
    return (this.holding = true);
  }

  /** Waits for the connection, in turn, for a transaction. */
  async take(): Promise<void> {
    await this.mutex.lock(true);
    this.holding = true;
  }

  /**
   * Begins the holder's transaction: `beginSql`, or a savepoint inside the group's open
   * transaction. On failure the connection is handed on (and an open group fails) and the error
   * is thrown.
   */
  begin(beginSql: string): void {
    const open = this.committed !== undefined;
    try {
      if (!open) this.settleOthers();
      this.connection.run(open ? `SAVEPOINT ${memberSavepoint}` : beginSql);
    } catch (error) {
      if (open) this.abandon(error);
      else this.release();
      throw error;
    }
    this.joined = open;
    if (!open) {
      this.committed = [];
      this.openedAt = performance.now();
      if (this.file !== undefined) {
        let groups = openGroups.get(this.file);
        if (groups === undefined) openGroups.set(this.file, (groups = new Set()));
        groups.add(this);
      }
    }
  }

  /**
   * Ends the holder's transaction (`commit` or roll back its own work) and hands the connection
   * on. Answers undefined when the outcome is settled now (a failed COMMIT of its own is thrown),
   * or a promise that settles with the group's COMMIT.
   */
  end(commit: boolean): Promise<void> | undefined {
    if (!this.joined && !commit) {
      // The first member of its transaction: nothing but its own work is in it.
      try {
        this.connection.run("ROLLBACK");
      } finally {
        this.close();
      }
      return undefined;
    }
    const committed = this.committed!;
    if (this.joined) {
      try {
        if (!commit) this.connection.run(`ROLLBACK TO ${memberSavepoint}`);
        this.connection.run(`RELEASE ${memberSavepoint}`);
        if (!this.connection.inTransaction()) throw new Error("the group commit's transaction was rolled back under it");
      } catch (error) {
        this.abandon(error);
        throw error;
      }
    }
    this.joined = false;
    const members = committed.length + (commit ? 1 : 0);
    if (members > 0 && members < this.limits.maxMembers && performance.now() - this.openedAt < this.limits.maxOpenMs) {
      const own = commit ? new Promise<void>((resolve, reject) => committed.push({ resolve, reject })) : undefined;
      if (this.mutex.nextJoins()) {
        // Handed straight to the next transaction waiting: it joins the group.
        this.mutex.unlock();
      } else {
        // Open until this turn of the event loop ends: transactions begun meanwhile join it.
        this.holding = false;
        if (this.mutex.waitingCount() === 0) this.scheduleFlush();
        else this.flush();
      }
      return own;
    }
    const failure = this.commitGroup(committed);
    if (failure !== undefined && commit) throw failure.error;
    return undefined;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      // A member holding the connection ends the group itself (or schedules this again).
      this.settle();
    });
  }

  /** COMMITs an open group nobody holds now (before the connection closes). */
  settle(): void {
    if (this.committed !== undefined && !this.holding) this.flush();
  }

  private flush(): void {
    this.commitGroup(this.committed ?? []);
  }

  /** COMMITs the open transaction, settles its waiting members and hands the connection on. */
  private commitGroup(committed: ReadonlyArray<Committed>): { readonly error: unknown } | undefined {
    let failure: { readonly error: unknown } | undefined;
    try {
      this.connection.run("COMMIT");
    } catch (error) {
      failure = { error };
      this.rollbackQuietly();
    }
    this.close();
    for (const member of committed) {
      if (failure === undefined) member.resolve();
      else member.reject(failure.error);
    }
    return failure;
  }

  /** The open transaction cannot go on: roll it back, fail its waiting members, hand the connection on. */
  private abandon(error: unknown): void {
    const committed = this.committed ?? [];
    this.rollbackQuietly();
    this.close();
    for (const member of committed) member.reject(error);
  }

  private rollbackQuietly(): void {
    try {
      if (this.connection.inTransaction()) this.connection.run("ROLLBACK");
    } catch {
      /* the first error is the one to report */
    }
  }

  /** No transaction is open any more: the next holder begins afresh. */
  private close(): void {
    this.committed = undefined;
    this.joined = false;
    if (this.file !== undefined) {
      const groups = openGroups.get(this.file);
      groups?.delete(this);
      if (groups?.size === 0) openGroups.delete(this.file);
    }
    this.release();
  }

  private release(): void {
    this.holding = false;
    this.mutex.unlock();
  }
}
