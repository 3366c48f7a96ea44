/**
 * The domain events of the project module (docs/conventions.md, Events): one definition per
 * `type`, with its `schema_version` and the Schema of its `data`, and `ProjectEvent`, the union
 * consumers decode envelopes with. Task facts carry the task as its wire shape (and a comment
 * fact the comment), so a client reading the channel sees what a GET would answer.
 */
import { Schema } from "effect";
import { defineEvent, eventUnion } from "../kernel/EventDefinition.js";
import { AttachmentStatus } from "./model/Attachment.js";
import { CommentView } from "./model/Comment.js";
import { TaskView } from "./model/Task.js";
import { CustomFieldValue } from "./model/TaskFieldValue.js";
import { AttachmentId, CustomFieldId, ProjectId, WorkspaceId } from "./model/Ids.js";

/** What every task fact carries: its project and the task as it is after the fact. */
const taskFact = { project_id: ProjectId, task: TaskView };

/** A field that changed: its value before and after. */
const Change = Schema.Struct({ from: Schema.Unknown, to: Schema.Unknown });

/** A task was created. */
export const TaskCreated = defineEvent("TaskCreated", 1, Schema.Struct({ kind: Schema.Literal("task.created"), ...taskFact }));

/** A task changed: fields (`changes`), trash, or a custom field value (`field_*`). */
export const TaskChanged = defineEvent(
  "TaskChanged",
  1,
  Schema.Struct({
    kind: Schema.Literal("task.updated", "task.deleted", "task.restored", "task.field_set"),
    ...taskFact,
    changes: Schema.optional(Schema.Record({ key: Schema.String, value: Change })),
    field_id: Schema.optional(CustomFieldId),
    field_name: Schema.optional(Schema.String),
    value: Schema.optional(Schema.NullOr(CustomFieldValue)),
    previous_value: Schema.optional(Schema.NullOr(CustomFieldValue)),
    /** Why the task was deleted or restored (the caller's, or a default). */
    reason: Schema.optional(Schema.String),
  }),
);

/** A comment fact: the comment and the users it mentions (on an edit, only the added ones). */
const commentFact = { ...taskFact, comment: CommentView, mentions: Schema.Array(Schema.String) };

/** A comment was added. */
export const CommentAdded = defineEvent("CommentAdded", 1, Schema.Struct({ kind: Schema.Literal("comment.added"), ...commentFact }));

/** A comment was edited. */
export const CommentEdited = defineEvent("CommentEdited", 1, Schema.Struct({ kind: Schema.Literal("comment.edited"), ...commentFact }));

/** An attachment's upload completed (it is quarantined until scanned). */
export const AttachmentAdded = defineEvent(
  "AttachmentAdded",
  1,
  Schema.Struct({
    kind: Schema.Literal("attachment.added"),
    ...taskFact,
    attachment_id: AttachmentId,
    filename: Schema.String,
    content_type: Schema.String,
    size: Schema.Int,
    status: AttachmentStatus,
  }),
);

/** An attachment's scan finished. */
export const AttachmentScanned = defineEvent(
  "AttachmentScanned",
  1,
  Schema.Struct({ kind: Schema.Literal("attachment.scanned"), ...taskFact, attachment_id: AttachmentId, outcome: AttachmentStatus }),
);

/** An attachment changed after its scan (its thumbnail is ready). */
export const AttachmentChanged = defineEvent(
  "AttachmentChanged",
  1,
  Schema.Struct({
    kind: Schema.Literal("attachment.thumbnail_ready"),
    ...taskFact,
    attachment_id: AttachmentId,
    change: Schema.Literal("thumbnail_ready"),
    thumbnail: Schema.Struct({ width: Schema.Int, height: Schema.Int }),
  }),
);

/**
 * What a membership fact carries (`project_id` null for a workspace membership). The envelope's
 * aggregate is the membership (`membershipAggregateId`: `project:<id>:member:<user_id>` or
 * `workspace:<id>:member:<user_id>`) at its version, the count of its changes so far (1 for the
 * first); envelopes written before that change used the project or workspace id at version 0.
 */
const MembershipData = Schema.Struct({
  workspace_id: WorkspaceId,
  project_id: Schema.NullOr(ProjectId),
  user_id: Schema.String,
  role: Schema.NullOr(Schema.String),
  reason: Schema.String,
});

/** A user became (or changed role as) a workspace member. */
export const WorkspaceMembershipGranted = defineEvent("WorkspaceMembershipGranted", 1, MembershipData);
/** A user was removed from a workspace. */
export const WorkspaceMembershipRevoked = defineEvent("WorkspaceMembershipRevoked", 1, MembershipData);
/** A user became (or changed role as) a project member. */
export const MembershipGranted = defineEvent("MembershipGranted", 1, MembershipData);
/** A user was removed from a project. */
export const MembershipRevoked = defineEvent("MembershipRevoked", 1, MembershipData);

/** Every event of the project module, decoded by `type`. */
export const ProjectEvent = eventUnion(
  TaskCreated,
  TaskChanged,
  CommentAdded,
  CommentEdited,
  AttachmentAdded,
  AttachmentScanned,
  AttachmentChanged,
  WorkspaceMembershipGranted,
  WorkspaceMembershipRevoked,
  MembershipGranted,
  MembershipRevoked,
);
export type ProjectEvent = typeof ProjectEvent.Type;
