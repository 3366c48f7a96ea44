/** One search hit: a task or comment document matching every word of a query. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** One hit. */
export const SearchHit = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("task", "comment"),
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  text: Schema.String,
});
export type SearchHit = typeof SearchHit.Type;

/** Wire shape of a hit. */
export const SearchHitView = wireShape(SearchHit);
