/**
 * The file storage events (spec: Events): UploadFinalized (upload API to scanner and type
 * detector, unique per version stage), FileVersionPublished (scanner coordinator to preview,
 * search and sync; consumers dedupe by version id), NodeDeleted (to sync, search removal and
 * lifecycle; the tombstone stays in the change feed through the cursor window), and
 * DriveChanged (sync: the workspace's change log grew; realtime: the drive channel
 * `drive:<workspace id>:<user id>` of each member who can see the change, ChannelAccess.ts).
 */
import { Schema } from "effect";
import { defineEvent, eventUnion } from "../kernel/EventDefinition.js";

/** A completed upload made a quarantined version; the scan is queued. */
export const UploadFinalized = defineEvent(
  "UploadFinalized",
  1,
  Schema.Struct({
    version_id: Schema.String,
    node_id: Schema.String,
    upload_id: Schema.String,
    number: Schema.Int,
    size_bytes: Schema.Int,
    sha256: Schema.String,
    content_type: Schema.String,
  }),
);

/** A clean version was published and made current (same transaction as its change record). */
export const FileVersionPublished = defineEvent(
  "FileVersionPublished",
  1,
  Schema.Struct({
    version_id: Schema.String,
    node_id: Schema.String,
    number: Schema.Int,
    size_bytes: Schema.Int,
    sha256: Schema.String,
    content_type: Schema.String,
    change_seq: Schema.Int,
  }),
);

/** A node (and its subtree) went to the trash. */
export const NodeDeleted = defineEvent(
  "NodeDeleted",
  1,
  Schema.Struct({ node_id: Schema.String, parent_id: Schema.NullOr(Schema.String), change_seq: Schema.Int, subtree_count: Schema.Int }),
);

/**
 * The change log of a workspace reached `seq` (one per change record, in its transaction). The
 * aggregate is the drive (`aggregate_id` = workspace id, `aggregate_version` = seq). It names no
 * node, and goes only to the drive channels of the change's readers (ChannelAccess.ts): a
 * subscriber reads `GET /v1/changes`, which filters by their access.
 */
export const DriveChanged = defineEvent("DriveChanged", 1, Schema.Struct({ seq: Schema.Int }));

/** Every file storage event; consumers decode envelopes with it. */
export const FilesEvent = eventUnion(UploadFinalized, FileVersionPublished, NodeDeleted, DriveChanged);
