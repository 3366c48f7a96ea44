/**
 * The daily change retention's kind and payload (`files.change_retention`): the UTC day of the
 * run and the last workspace of the previous page (null on the first). Declared apart because its
 * handler schedules it again (the next page, the next day).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const changeRetentionJobType = defineJobType({
  kind: "files.change_retention",
  payload: Schema.Struct({ day: Schema.String, after: Schema.NullOr(Schema.String) }),
});
