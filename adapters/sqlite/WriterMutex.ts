/**
 * The single SQLite write connection's lock: one holder at a time, in the order they asked. A
 * waiter says whether it is a transaction that may join an open group commit (GroupCommit.ts),
 * so the holder ending a transaction knows whether the next holder can share its COMMIT.
 */
interface Waiter {
  readonly wake: () => void;
  /** A transaction's BEGIN: it may run inside the group's open transaction. */
  readonly joins: boolean;
}

export class WriterMutex {
  private held = false;
  private readonly waiting: Array<Waiter> = [];

  /** Takes the lock at once when it is free. */
  tryLock(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Waits for the lock, in turn; `joins` for a transaction that may join an open group commit. */
  lock(joins = false): Promise<void> {
    if (this.tryLock()) return Promise.resolve();
    return new Promise((wake) => this.waiting.push({ wake, joins }));
  }

  /** True when the next holder is a transaction that may join an open group commit. */
  nextJoins(): boolean {
    return this.waiting[0]?.joins === true;
  }

  /** How many wait for the lock. */
  waitingCount(): number {
    return this.waiting.length;
  }

  /** Hands the lock to the next waiter, or frees it. */
  unlock(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.held = false;
    else next.wake();
  }
}
