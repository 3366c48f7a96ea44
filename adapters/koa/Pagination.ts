/**
 * List pages (docs/conventions.md, Lists): `?cursor=&limit=` in, `{ data, next_cursor }` out.
 * Cursors come from the kernel's one cursor codec (core/kernel/Cursor.ts); this file only
 * reads the query and shapes the page.
 */
import { InvalidCursor } from "../../core/kernel/Errors.js";
import { encodeCursor } from "../../core/kernel/Cursor.js";
import { Schema } from "effect";
import { InvalidLimit } from "./HttpErrors.js";
import { defaultLimits, type Limits } from "./Limits.js";

/** The page a list request asks for. */
export interface PageParams {
  readonly limit: number;
  /** The opaque cursor of the previous page; decode it with `decodeCursor` and the key schema. */
  readonly cursor: string | undefined;
}

/** One page of a list. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>;
  readonly next_cursor: string | null;
}

/** The query fields of a paginated list, for route `query` schemas and the OpenAPI document. */
export const pageQueryFields = {
  cursor: Schema.optional(Schema.String).annotations({ description: "Opaque cursor from a previous page's next_cursor." }),
  limit: Schema.optional(Schema.String).annotations({ description: "Page size (default 50, at most 200)." }),
};

/** The schema of a page of `item`, for route `responses`. */
export const PageOf = <A, I>(item: Schema.Schema<A, I, never>) =>
  Schema.Struct({ data: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) });

const digits = /^\d{1,6}$/;

/**
 * Reads `limit` (default and maximum from `Limits`) and `cursor` from a parsed query. Throws
 * `InvalidLimit` (400 invalid_limit) or `InvalidCursor` for a repeated or empty cursor.
 */
export const pageParams = (
  query: Readonly<Record<string, unknown>>,
  limits: Pick<Limits, "listDefault" | "listMax"> = defaultLimits,
): PageParams => {
  const rawLimit = query.limit;
  let limit = limits.listDefault;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== "string" || !digits.test(rawLimit)) throw new InvalidLimit({});
    limit = Number(rawLimit);
    if (limit < 1 || limit > limits.listMax) {
      throw new InvalidLimit({ detail: `limit must be between 1 and ${limits.listMax}.` });
    }
  }
  const rawCursor = query.cursor;
  if (rawCursor !== undefined && (typeof rawCursor !== "string" || rawCursor === "")) throw new InvalidCursor({});
  return { limit, cursor: rawCursor };
};

/**
 * Shapes a page from rows fetched with `limit + 1`: the extra row only proves there is a next
 * page, whose cursor is the sort key of the last row returned (`keysOf`).
 */
export const page = <A>(
  rows: ReadonlyArray<A>,
  limit: number,
  keysOf: (row: A) => ReadonlyArray<string | number>,
): Page<A> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keysOf(last)) : null };
};
