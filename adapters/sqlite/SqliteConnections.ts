/**
 * The SQLite connections under Kysely: a write connection (one at a time, behind a mutex, as
 * Kysely's own SqliteDriver does) and, for a file database in WAL mode, a read connection for
 * single SELECTs issued outside a transaction, so they never queue behind an open write
 * transaction. Each connection keeps its prepared statements in a bounded LRU cache keyed by the
 * SQL text, so a hot query is prepared once per connection instead of once per execution, and
 * reads its rows as arrays made into objects in JavaScript (RowObjects.ts).
 * Transactions queued for the write connection share COMMITs (GroupCommit.ts).
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type { ExclusiveConnection, SqlDatabase } from "../sql/SqlDatabase.js";
import { GroupCommit, type GroupCommitLimits } from "./GroupCommit.js";
import { allRows, iterateRows, noteStatement } from "./RowObjects.js";
import { WriterMutex } from "./WriterMutex.js";

/** Prepared statements of one connection, least recently used first. */
export class StatementCache {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly database: BetterSqlite3.Database,
    readonly capacity: number,
  ) {}

  /** The cached statement for `sql`, prepared on first use; evicts the least recently used. */
  prepare(sql: string): BetterSqlite3.Statement {
    const cached = this.statements.get(sql);
    if (cached !== undefined) {
      // A statement still iterating (a stream) cannot run again: use a fresh, uncached one.
      if (cached.busy) return this.database.prepare(sql);
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const statement = this.database.prepare(sql);
    this.statements.set(sql, statement);
    if (this.statements.size > this.capacity) {
      const oldest = this.statements.keys().next();
      if (oldest.done !== true) this.statements.delete(oldest.value);
    }
    return statement;
  }

  /** How many statements are cached (tests). */
  get size(): number {
    return this.statements.size;
  }
}

/** Runs one compiled query on a connection's cached statements, as Kysely's SqliteConnection does. */
const execute = (cache: StatementCache, { sql, parameters }: CompiledQuery): QueryResult<any> => {
  const statement = cache.prepare(sql);
  if (statement.reader) return { rows: allRows(statement, parameters) };
  noteStatement(sql);
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
};

async function* stream(cache: StatementCache, { sql, parameters, query }: CompiledQuery): AsyncIterableIterator<QueryResult<any>> {
  if (!SelectQueryNode.is(query)) throw new Error("Sqlite driver only supports streaming of select queries");
  for (const row of iterateRows(cache.prepare(sql), parameters)) yield { rows: [row] };
}

/** One connection's query surface for Kysely. */
class CachedConnection implements DatabaseConnection {
  constructor(readonly cache: StatementCache) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(execute(this.cache, query));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return stream(this.cache, query);
  }
}

/** What both drivers share: the write connection, its mutex, and the optional read connection. */
export interface SqliteConnectionSet {
  readonly writer: BetterSqlite3.Database;
  readonly reader: BetterSqlite3.Database | undefined;
  /** Prepared statements kept per connection (default 500). */
  readonly cacheSize?: number;
  /** Bounds of a group commit (GroupCommit.ts); default 16 transactions, 5 ms. */
  readonly groupCommit?: GroupCommitLimits;
  /** The database file's absolute path (undefined in memory): groups of one process on one file stay out of each other's way. */
  readonly file?: string;
}

interface Shared {
  readonly mutex: WriterMutex;
  readonly group: GroupCommit;
  readonly writer: CachedConnection;
  readonly reader: CachedConnection | undefined;
  readonly close: () => void;
}

/**
 * The write connection for a holder of the mutex about to write outside a group's transaction
 * (a pinned connection, an autocommit statement, a stream): first the groups other connections
 * of this process hold open on the file are committed (GroupCommit.settleOthers), or this
 * write would wait for their lock on the event loop that is to commit them.
 */
const writerFor = (shared: Shared): CachedConnection => {
  shared.group.settleOthers();
  return shared.writer;
};

const transactionControl = {
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin"));
  },
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  },
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  },
};

/** The write connection, one holder at a time (pinned connections, transactions, migrations). */
class WriterDriver implements Driver {
  constructor(private readonly shared: Shared) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.shared.mutex.lock();
    return writerFor(this.shared);
  }
  beginTransaction = transactionControl.beginTransaction;
  commitTransaction = transactionControl.commitTransaction;
  rollbackTransaction = transactionControl.rollbackTransaction;
  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name}"`));
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${name}"`));
  }
  async releaseConnection(): Promise<void> {
    this.shared.mutex.unlock();
  }
  async destroy(): Promise<void> {
    this.shared.close();
  }
}

/**
 * Single statements outside a transaction: a SELECT runs on the read connection (when there is
 * one), anything else takes the write connection for that one statement (after an open group
 * commit's COMMIT: GroupCommit.ts). It cannot pin a connection, so it refuses transactions
 * (Transactions.ts opens them on the write driver).
 */
class AutocommitConnection implements DatabaseConnection {
  constructor(private readonly shared: Shared) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { reader, mutex } = this.shared;
    if (reader !== undefined && SelectQueryNode.is(query.query)) return execute(reader.cache, query);
    if (!mutex.tryLock()) await mutex.lock();
    try {
      return execute(writerFor(this.shared).cache, query);
    } finally {
      mutex.unlock();
    }
  }
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { reader, mutex } = this.shared;
    if (reader !== undefined) {
      yield* stream(reader.cache, query);
      return;
    }
    await mutex.lock();
    try {
      yield* stream(writerFor(this.shared).cache, query);
    } finally {
      mutex.unlock();
    }
  }
}

class AutocommitDriver implements Driver {
  private readonly connection: AutocommitConnection;
  constructor(shared: Shared) {
    this.connection = new AutocommitConnection(shared);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error("the autocommit executor runs single statements: open transactions with Transactions.run");
  }
  commitTransaction = this.beginTransaction;
  rollbackTransaction = this.beginTransaction;
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/**
 * The write connection for the one holder of the mutex (the `ExclusiveConnection` Transactions.ts
 * takes for a transaction): it neither takes nor frees the lock, its holder does.
 */
class HeldWriterDriver implements Driver {
  constructor(private readonly shared: Shared) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.shared.writer;
  }
  beginTransaction = transactionControl.beginTransaction;
  commitTransaction = transactionControl.commitTransaction;
  rollbackTransaction = transactionControl.rollbackTransaction;
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const dialectWith = (driver: () => Driver): Dialect => ({
  createDriver: driver,
  createQueryCompiler: () => new SqliteQueryCompiler(),
  createAdapter: () => new SqliteAdapter(),
  createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
});

/**
 * Kysely dialects over one connection set: `writer` (every use of `db.db`, pinned connections
 * included), `autocommit` (single statements outside a transaction) and `held` (the write
 * connection of the current holder of the mutex: `exclusive`'s executor). Destroying the
 * writer's Kysely closes both connections.
 */
export const sqliteDialects = (
  connections: SqliteConnectionSet,
): {
  readonly writer: Dialect;
  readonly autocommit: Dialect;
  readonly exclusive: (executor: (held: Dialect) => Kysely<any>) => ExclusiveConnection;
  readonly runNow: (executors: { readonly held: Kysely<any>; readonly autocommit: Kysely<any> }) => NonNullable<SqlDatabase["runNow"]>;
} => {
  const capacity = connections.cacheSize ?? 500;
  const mutex = new WriterMutex();
  const writerCache = new StatementCache(connections.writer, capacity);
  const group = new GroupCommit(
    { run: (sql) => void writerCache.prepare(sql).run(), inTransaction: () => connections.writer.inTransaction },
    mutex,
    connections.groupCommit,
    connections.file,
  );
  const shared: Shared = {
    mutex,
    group,
    writer: new CachedConnection(writerCache),
    reader: connections.reader === undefined ? undefined : new CachedConnection(new StatementCache(connections.reader, capacity)),
    close: () => {
      // Transactions already told to wait for a group's COMMIT get it before the connection goes.
      group.settle();
      connections.reader?.close();
      connections.writer.close();
    },
  };
  return {
    writer: dialectWith(() => new WriterDriver(shared)),
    autocommit: dialectWith(() => new AutocommitDriver(shared)),
    // Transactions take the write connection through the group commit (GroupCommit.ts).
    exclusive: (executor) => ({
      kind: "exclusive",
      executor: executor(dialectWith(() => new HeldWriterDriver(shared))),
      tryTake: () => group.tryTake(),
      take: () => group.take(),
      begin: (beginSql) => group.begin(beginSql),
      end: (commit) => group.end(commit),
    }),
    // What the held and the autocommit connections would do, without Kysely's promises: the held
    // writer belongs to the open transaction; an autocommit SELECT reads on the read connection,
    // another statement needs the write connection free now. Anything else goes through Kysely.
    runNow:
      ({ held, autocommit }) =>
      (executor, query) => {
        if (executor === held) return execute(shared.writer.cache, query);
        if (executor !== autocommit) return undefined;
        if (shared.reader !== undefined && SelectQueryNode.is(query.query)) return execute(shared.reader.cache, query);
        if (!shared.mutex.tryLock()) return undefined;
        try {
          return execute(writerFor(shared).cache, query);
        } finally {
          shared.mutex.unlock();
        }
      },
  };
};
