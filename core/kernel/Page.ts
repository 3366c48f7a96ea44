/**
 * One page of a list (docs/conventions.md, Lists): the rows and the opaque keyset cursor of the
 * next page, `null` on the last. Repositories fetch `limit + 1` rows; `pageFrom` keeps `limit`
 * and derives the cursor from the last row's sort key with the one cursor codec.
 */
import { Schema } from "effect";
import { encodeCursor, type CursorKey } from "./Cursor.js";

/** A page of `A` as every list answers it. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>;
  readonly next_cursor: string | null;
}

/**
 * Shapes a page from rows fetched with `limit + 1`: the extra row only proves that a next page
 * exists, whose cursor is the sort key (`keysOf`) of the last row returned.
 */
export const pageFrom = <A>(
  rows: ReadonlyArray<A>,
  limit: number,
  keysOf: (row: A) => ReadonlyArray<CursorKey>,
): Page<A> => {
  const data = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keysOf(last)) : null };
};

/** The same page with every row mapped (records to wire shapes). */
export const mapPage = <A, B>(page: Page<A>, f: (row: A) => B): Page<B> => ({
  data: page.data.map(f),
  next_cursor: page.next_cursor,
});

/** The key of a list ordered by id alone: `[id]`. */
export const IdCursorKey = Schema.Tuple(Schema.String);

/** The key of a list ordered by a time (ISO text) then id: `[created_at, id]`. */
export const TimeIdCursorKey = Schema.Tuple(Schema.String, Schema.String);

/** The schema of a page of `item`, for route responses and the OpenAPI document. */
export const PageOf = <A, I>(item: Schema.Schema<A, I, never>) =>
  Schema.Struct({ data: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) });
