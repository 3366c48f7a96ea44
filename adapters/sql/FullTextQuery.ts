/**
 * The full-text query of a list of search terms (core/kernel/SearchTerms.ts: letters and digits
 * only, so nothing needs quoting beyond the phrase quotes), by dialect: every term is required and
 * matches as a prefix of a word. Bound as a parameter, never spliced into SQL.
 */

/** The FTS5 MATCH expression (SQLite): `"a"* "b"*`. */
export const fts5PrefixQuery = (terms: ReadonlyArray<string>): string => terms.map((t) => `"${t}"*`).join(" ");

/** The `to_tsquery('simple', …)` text (Postgres): `a:* & b:*`. */
export const tsqueryPrefix = (terms: ReadonlyArray<string>): string => terms.map((t) => `${t}:*`).join(" & ");
