/**
 * `timestamptz` columns read as Dates without regular expressions. pg parses them with
 * postgres-date: an infinity test, a date-time regex and a time-zone regex per value, about 1 µs,
 * ~5% of the CPU of an activity page on Postgres (51 events, a time each).
 *
 * The form Postgres writes for a four-digit year with a whole-hour offset
 * (`2026-11-27 09:35:45.123456+00`, the fraction optional, `+00` in a UTC session) is read here
 * with postgres-date's own arithmetic, so the Date is the same one: the fraction as
 * `1000 * parseFloat(".123456")` milliseconds, `Date.UTC`, then the offset. Any other text (BC
 * years, infinity, an offset with minutes, a year outside 1000–9999) goes to postgres-date.
 * test/storage/postgres-timestamps.test.ts holds the two against each other.
 */
import pg from "pg";

/** OID of `timestamptz`. */
const timestamptzOid = 1184;

const byPostgresDate = pg.types.getTypeParser(timestamptzOid, "text") as (text: string) => Date | number | null;

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** The two digits at `at` as a number, or -1. */
const twoDigits = (text: string, at: number): number => {
  const a = text.charCodeAt(at);
  const b = text.charCodeAt(at + 1);
  return isDigit(a) && isDigit(b) ? (a - 48) * 10 + (b - 48) : -1;
};

/** A `timestamptz` value as pg's default parser answers it. */
export const parseTimestamptz = (text: string): Date | number | null => {
  const length = text.length;
  // "YYYY-MM-DD HH:MM:SS" then an optional ".f…" then "+HH" or "-HH", nothing after.
  if (length < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) {
    return byPostgresDate(text);
  }
  const century = twoDigits(text, 0);
  const yearOfCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 10 || yearOfCentury < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return byPostgresDate(text);
  let end = 19;
  if (text.charCodeAt(end) === 46) {
    end++;
    while (end < length && isDigit(text.charCodeAt(end))) end++;
    if (end === 20) return byPostgresDate(text);
  }
  const sign = text.charCodeAt(end);
  if (end + 3 !== length || (sign !== 43 && sign !== 45)) return byPostgresDate(text);
  const offsetHours = twoDigits(text, end + 1);
  if (offsetHours < 0) return byPostgresDate(text);
  const ms = end > 19 ? 1000 * parseFloat(text.slice(19, end)) : 0;
  const date = new Date(Date.UTC(century * 100 + yearOfCentury, month - 1, day, hour, minute, second, ms));
  const offset = offsetHours * 3600 * 1000 * (sign === 45 ? -1 : 1);
  if (offset !== 0) date.setTime(date.getTime() - offset);
  return date;
};

/** pg's type parsers with {@link parseTimestamptz} for `timestamptz` text: a Pool's `types`. */
export const postgresTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === timestamptzOid && format !== "binary" ? parseTimestamptz : pg.types.getTypeParser(oid, format as "text"),
};
