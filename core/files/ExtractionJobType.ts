/**
 * The archive extraction job's kind and payload (`files.archive_extraction`, keyed by
 * extraction): declared apart so the request (which schedules it) and the job (which runs it)
 * do not import each other.
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const extractionJobType = defineJobType({
  kind: "files.archive_extraction",
  payload: Schema.Struct({ workspace_id: Schema.String, extraction_id: Schema.String }),
});
