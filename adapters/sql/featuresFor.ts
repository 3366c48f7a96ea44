/** The dialect features of an open database (supplied by the driver that opened it). */
import type { DialectFeatures } from "./DialectFeatures.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The features of `db`'s dialect. */
export const featuresFor = (db: SqlDatabase): DialectFeatures => db.features;
