/** Looks up the dialect features of an open database. */
import { postgresFeatures } from "../postgres/postgresFeatures.js";
import { sqliteFeatures } from "../sqlite/sqliteFeatures.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The features of `db`'s dialect. */
export const featuresFor = (db: SqlDatabase): DialectFeatures =>
  db.dialect === "sqlite" ? sqliteFeatures : postgresFeatures;
