/**
 * List pages (docs/conventions.md, Lists): `?cursor=&limit=` in, `{ data, next_cursor }` out.
 * Cursors come from the kernel's one cursor codec (core/kernel/Cursor.ts) and pages from its
 * `pageFrom` (core/kernel/Page.ts); this file reads the query and names the list a request
 * reads, to which the route machinery binds the cursors it answers (Route.ts).
 */
import type { Effect } from "effect";
import { Schema } from "effect";
import { InvalidCursor } from "../../core/kernel/Errors.js";
import { InvalidLimit } from "./HttpErrors.js";
import { defaultLimits, type Limits } from "./Limits.js";

export { PageOf } from "../../core/kernel/Page.js";

/** `limit` and `cursor` as a request gives them. */
export interface RequestedPage {
  readonly limit: number;
  /** The cursor as the client sent it (bound to the list that issued it). */
  readonly cursor: string | undefined;
}

/** The page a list request asks for, as a handler receives it. */
export interface PageParams {
  readonly limit: number;
  /** The opaque cursor of the previous page, unbound; decode it with `decodeCursor` and the key schema. */
  readonly cursor: string | undefined;
  /**
   * Binds a cursor of this list for the client. `next_cursor` is bound by the route machinery;
   * a handler binds only a cursor it answers elsewhere (a problem's `restart_cursor`).
   */
  readonly bind: (cursor: string) => Effect.Effect<string, InvalidCursor>;
}

/** The query fields of a paginated list, for route `query` schemas and the OpenAPI document. */
export const pageQueryFields = {
  cursor: Schema.optional(Schema.String).annotations({ description: "Opaque cursor from a previous page's next_cursor." }),
  limit: Schema.optional(Schema.String).annotations({ description: "Page size (default 50, at most 200)." }),
};

const digits = /^\d{1,6}$/;

/**
 * Reads `limit` (default and maximum from `Limits`) and `cursor` from a parsed query. Throws
 * `InvalidLimit` (400 invalid_limit) or `InvalidCursor` for a repeated or empty cursor.
 */
export const pageParams = (
  query: Readonly<Record<string, unknown>>,
  limits: Pick<Limits, "listDefault" | "listMax"> = defaultLimits,
): RequestedPage => {
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

const definedEntries = (record: unknown): Array<[string, unknown]> =>
  typeof record === "object" && record !== null
    ? Object.entries(record)
        .filter(([name, value]) => value !== undefined && name !== "cursor" && name !== "limit")
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    : [];

/**
 * The identity of the list a request reads: its operation, its decoded path parameters and its
 * decoded query filters (not `cursor` or `limit`). A cursor one list issued is refused by another.
 */
export const listIdentity = (operationId: string, params: unknown, query: unknown): string =>
  JSON.stringify([operationId, definedEntries(params), definedEntries(query)]);
