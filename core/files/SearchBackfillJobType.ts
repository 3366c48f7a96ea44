/**
 * The search backfill's kind and payload (`files.search_backfill`, no payload of its own: each
 * run takes the next documents still waiting). Declared apart because its handler schedules it
 * again (SearchBackfill.ts).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const searchBackfillJobType = defineJobType({
  kind: "files.search_backfill",
  payload: Schema.Struct({ page: Schema.Number }),
});
