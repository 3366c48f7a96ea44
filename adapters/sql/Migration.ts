/** The shape of one versioned schema change, written once per dialect. */

/** One migration of one module: applied once, in version order, in its own transaction. */
export interface Migration {
  /** Positive integer, unique within the module; migrations apply in ascending order. */
  readonly version: number;
  /** Short snake_case description, recorded with the version. */
  readonly name: string;
  /** Statements for SQLite, one statement per string (better-sqlite3 runs one at a time). */
  readonly sqlite: ReadonlyArray<string>;
  /** Statements for Postgres, one statement per string. */
  readonly postgres: ReadonlyArray<string>;
}
