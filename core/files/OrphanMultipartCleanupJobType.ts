/**
 * The daily orphan multipart cleanup's kind and payload (`files.orphan_multipart_cleanup`): the
 * UTC day of the run and where the store's listing continues (null on the first page). Declared
 * apart because its handler schedules it again (the next page, the next day).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const orphanMultipartCleanupJobType = defineJobType({
  kind: "files.orphan_multipart_cleanup",
  payload: Schema.Struct({ day: Schema.String, after: Schema.NullOr(Schema.Struct({ key: Schema.String, upload_id: Schema.String })) }),
});
