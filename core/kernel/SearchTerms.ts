/**
 * Full-text search words, the same for every module's index: letters and digits, lower-cased.
 * A query keeps at most {@link maxSearchTerms} distinct words (each matched as a prefix by the
 * indexes); indexed text is reduced to its words the same way, so both dialects' tokenizers
 * (SQLite FTS5 unicode61, Postgres 'simple') see the same words ("q3-report.pdf": q3 report pdf).
 */

/** At most this many terms are matched (the rest of a long query is ignored). */
export const maxSearchTerms = 8;

const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The words of a query: letters and digits, lower-cased, each cut to 64 characters, at most {@link maxSearchTerms}. */
export const searchTerms = (q: string): ReadonlyArray<string> => [...new Set(words(q).map((t) => t.slice(0, 64)))].slice(0, maxSearchTerms);

/** Text as an index stores it: its words, lower-cased, separated by single spaces. */
export const searchableText = (text: string): string => words(text).join(" ");
