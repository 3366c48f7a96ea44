/**
 * What an upload session's owner must still be allowed to do for the session to go on (spec
 * States: "caller can edit the parent folder"): create in the folder for a new file, edit the
 * file for a new version. Every answer that issues fresh part grants checks it, since a grant is a
 * write capability. A resume is a read: its grants follow the access it reads. A command that
 * writes (a part report, the completion) checks before its transaction and again inside it under
 * the drive lock (NamespaceLock.ts), so a revocation committed in between is seen.
 */
import { requireAccess, type NodeAction } from "./Access.js";
import type { UploadSession } from "./model/UploadSession.js";
import { lockNamespaceWithAccess, requireAccessUnderLock } from "./NamespaceLock.js";

/** The node the session's owner must still reach, and the action they must be allowed there. */
const neededAccess = (session: UploadSession): readonly [string, NodeAction] =>
  session.nodeId === null ? [session.parentId, "create_child"] : [session.nodeId, "edit"];

/** Succeeds while the session's owner may still upload what it opened; NotFound or Forbidden otherwise. */
export const mayStillUpload = (session: UploadSession) => requireAccess(session.workspaceId, session.createdBy, ...neededAccess(session));

/** The same under the drive lock the command took, the owner's membership held until the commit. */
export const mayStillUploadUnderLock = (session: UploadSession) => requireAccessUnderLock(session.workspaceId, session.createdBy, ...neededAccess(session));

/** Takes the drive lock, then `mayStillUploadUnderLock`: inside the transaction of a command that changes no namespace. */
export const lockAndMayStillUpload = (session: UploadSession) => lockNamespaceWithAccess(session.workspaceId, session.createdBy, ...neededAccess(session));
