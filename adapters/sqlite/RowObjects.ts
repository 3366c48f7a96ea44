/**
 * Rows of a SQLite statement as objects, made in JavaScript. better-sqlite3 builds each row
 * object in C++, setting every column by its name (interned again for every row and column).
 * Here the statement answers raw arrays instead, and one object literal generated per column list
 * turns each into the same object: the same keys in the same order, the last of duplicate names
 * winning. A 51-row page of 8 columns costs about a third less CPU, a one-row read a little less.
 *
 * The column list is read from the statement after its first run that returns rows. It changes
 * under a prepared statement only when the schema does (SQLite then re-prepares it, so `SELECT *`
 * sees the new columns). Two guards keep the objects exact:
 * - a row whose length is not the list's re-reads the list (a column added or dropped, by any
 *   process);
 * - after a statement that changes a schema (CREATE, ALTER, DROP) runs on any connection of this
 *   process, every statement re-reads its list before its next rows.
 * What neither guard sees is another process renaming or reordering a table's columns while this
 * one runs; restart the processes on a file after migrating it from another one (the same rule as
 * Postgres's named statements: docs/decisions.md).
 */
import type BetterSqlite3 from "better-sqlite3";
import { generatedFunction, literalKey } from "../../core/kernel/GeneratedCode.js";

/** A row as Kysely expects it: column name to value. */
export type ObjectRow = Record<string, unknown>;

type Build = (values: ReadonlyArray<unknown>) => ObjectRow;

/** What one statement needs to make its rows: its column list's builder, and when it was read. */
interface Shape {
  width: number;
  build: Build;
  generation: number;
}

/** Bumped whenever a schema-changing statement runs in this process. */
let schemaGeneration = 0;

// Leading blanks and comments, then the verb (a migration's SQL may start with a comment).
const schemaChange = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:create|alter|drop)\b/i;

/** Notes that `sql`, about to run, may change a schema: every statement re-reads its columns. */
export const noteStatement = (sql: string): void => {
  if (schemaChange.test(sql)) schemaGeneration++;
};

// Builders by column list: a few dozen distinct lists in an application, so they are shared.
const builders = new Map<string, Build>();
const maxBuilders = 2_000;

const builderFor = (names: ReadonlyArray<string>): Build => {
  const key = names.join("\u0000");
  let build = builders.get(key);
  if (build === undefined) {
    build = generatedFunction<Build>("rowObject", ["v"], `return { ${names.map((name, i) => `${literalKey(name)}: v[${i}]`).join(", ")} };`);
    if (builders.size >= maxBuilders) builders.clear();
    builders.set(key, build);
  }
  return build;
};

/** Each statement's shape; a statement has one from its first run on, when it starts answering arrays. */
const shapes = new WeakMap<BetterSqlite3.Statement, Shape>();

/** Generation of a shape whose column list is not read yet. */
const unread = -1;

const columnNames = (statement: BetterSqlite3.Statement): ReadonlyArray<string> => statement.columns().map((column) => column.name);

/** The statement's shape before a run: made, and the statement switched to arrays, on its first. */
const shapeBeforeRun = (statement: BetterSqlite3.Statement): Shape => {
  let shape = shapes.get(statement);
  if (shape === undefined) {
    statement.raw(true);
    shape = { width: 0, build: builderFor([]), generation: unread };
    shapes.set(statement, shape);
  }
  return shape;
};

/**
 * Reads the column list again when it is not current, after the statement ran: SQLite
 * re-prepares a statement whose schema changed when it runs, so only then do its columns tell
 * the new list.
 */
const readAfterRun = (statement: BetterSqlite3.Statement, shape: Shape): void => {
  if (shape.generation === schemaGeneration) return;
  const names = columnNames(statement);
  shape.width = names.length;
  shape.build = builderFor(names);
  shape.generation = schemaGeneration;
};

const toObject = (statement: BetterSqlite3.Statement, shape: Shape, values: ReadonlyArray<unknown>): ObjectRow => {
  if (values.length !== shape.width) {
    // The schema changed under the statement (another process): read the list again.
    const names = columnNames(statement);
    shape.width = names.length;
    shape.build = builderFor(names);
  }
  return shape.build(values);
};

/** Every row of a statement that returns data, as objects. */
export const allRows = (statement: BetterSqlite3.Statement, parameters: ReadonlyArray<unknown>): ObjectRow[] => {
  const shape = shapeBeforeRun(statement);
  const rows = statement.all(parameters) as unknown[];
  if (rows.length === 0) return rows as ObjectRow[];
  readAfterRun(statement, shape);
  for (let i = 0; i < rows.length; i++) rows[i] = toObject(statement, shape, rows[i] as ReadonlyArray<unknown>);
  return rows as ObjectRow[];
};

/** The rows of a statement that returns data, one at a time, as objects. */
export function* iterateRows(statement: BetterSqlite3.Statement, parameters: ReadonlyArray<unknown>): IterableIterator<ObjectRow> {
  const shape = shapeBeforeRun(statement);
  let first = true;
  for (const values of statement.iterate(parameters) as IterableIterator<ReadonlyArray<unknown>>) {
    if (first) readAfterRun(statement, shape);
    first = false;
    yield toObject(statement, shape, values);
  }
}
