/**
 * What an upload session's owner must still be allowed to do for the session to go on (spec
 * States: "caller can edit the parent folder"): create in the folder for a new file, edit the
 * file for a new version. Completing checks it (again under the drive lock), and so does every
 * answer that issues fresh part grants (resume, part report), since a grant is a write capability.
 */
import { requireAccess } from "./Access.js";
import type { UploadSession } from "./model/UploadSession.js";

/** Succeeds while the session's owner may still upload what it opened; NotFound or Forbidden otherwise. */
export const mayStillUpload = (session: UploadSession) =>
  session.nodeId === null
    ? requireAccess(session.workspaceId, session.createdBy, session.parentId, "create_child")
    : requireAccess(session.workspaceId, session.createdBy, session.nodeId, "edit");
