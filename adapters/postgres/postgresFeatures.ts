/** Postgres's dialect features: plain BEGIN, timestamptz, jsonb, FOR UPDATE SKIP LOCKED. */
import { sql } from "kysely";
import type { DialectFeatures } from "../sql/DialectFeatures.js";

/** Times are timestamptz (pg hands back Date objects); JSON is jsonb. */
export const postgresFeatures: DialectFeatures = {
  dialect: "postgres",
  beginSql: "BEGIN",
  timeToDb: (date) => date,
  timeFromDb: (value) => (value instanceof Date ? value : new Date(value as string)),
  // Sent as text and cast by Postgres, so a JSON string value stays a string.
  jsonToDb: (value) => JSON.stringify(value ?? null),
  // pg already parses jsonb.
  jsonFromDb: (value) => value,
  skipLocked: (query) => query.forUpdate().skipLocked(),
  rowLocator: "ctid",
  keyInBatch: (column, batch) => sql<boolean>`${sql.ref(column)} = ANY (ARRAY(${batch}))`,
};
