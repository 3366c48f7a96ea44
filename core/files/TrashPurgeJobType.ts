/**
 * The daily trash purge's kind and payload (`files.trash_purge`): the UTC day of the run and the
 * `(trashed_at, id)` key of the last trash root of the previous page (null on the first).
 * Declared apart because its handler schedules it again (the next page, the next day).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const trashPurgeJobType = defineJobType({
  kind: "files.trash_purge",
  payload: Schema.Struct({ day: Schema.String, after: Schema.NullOr(Schema.Tuple(Schema.String, Schema.String)) }),
});
