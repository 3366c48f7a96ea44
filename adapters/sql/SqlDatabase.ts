/**
 * One open database: its dialect and a Kysely instance over the driver. Repositories are
 * written once against `db`; what differs by dialect is looked up from `dialect`.
 */
import type { Kysely } from "kysely";

/** The two SQL dialects domainkit speaks. */
export type SqlDialect = "sqlite" | "postgres";

/** An open SQLite or Postgres database (see adapters/sqlite and adapters/postgres). */
export interface SqlDatabase {
  readonly dialect: SqlDialect;
  // Kysely<any>: modules own their tables, so no single schema type can describe them all.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly db: Kysely<any>;
  /**
   * Where single statements outside a transaction go, when the driver routes them (SQLite: a
   * SELECT to the read connection, anything else to the write connection for that statement).
   * It cannot open transactions. Absent: `db` serves them (Postgres: its pool).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly autocommit?: Kysely<any>;
  readonly close: () => Promise<void>;
}
