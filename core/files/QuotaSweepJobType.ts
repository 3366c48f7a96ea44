/**
 * The daily quota sweep's kind and payload (`files.quota_sweep`): the UTC day it covers and the
 * last workspace of the previous page (null on the first). Declared apart because its handler
 * schedules it again (the next page, the next day).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const quotaSweepJobType = defineJobType({
  kind: "files.quota_sweep",
  payload: Schema.Struct({ day: Schema.String, after: Schema.NullOr(Schema.String) }),
});
