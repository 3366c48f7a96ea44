/**
 * A time a client sends (docs/conventions.md, HTTP: timestamps are RFC 3339): a date and time with
 * a 4-digit year and an offset or `Z`, decoded to a Date. `Schema.Date` alone reads anything
 * `new Date` reads, years beyond 9999 or before year 0 among them: SQLite then stores text that
 * sorts out of order (`+275760-…` before `2026-…`) and Postgres refuses some (a 500). Every
 * request schema takes its times from here.
 */
import { Schema } from "effect";

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time with a 4-digit year, as a Date. */
export const RequestTime = Schema.String.pipe(
  Schema.pattern(rfc3339, { message: () => "must be an RFC 3339 date-time, e.g. 2026-11-28T15:00:00Z" }),
  Schema.compose(Schema.Date),
).annotations({ description: "RFC 3339 date-time (4-digit year, Z or an offset)" });
