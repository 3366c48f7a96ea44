/**
 * The upload session machine. An open session completes (its reservation becomes used bytes),
 * or is aborted, expires, or fails verification (its reservation released); each settlement
 * happens once, decided by a conditional update `WHERE status = 'open'`.
 */
import type { UploadStatus } from "./model/UploadSession.js";
import { transition, type TransitionTable } from "./StateMachine.js";

/** What moves a session. */
export type UploadTrigger = "complete" | "abort" | "expire" | "fail_verification";

export const uploadTransitions: TransitionTable<UploadStatus, UploadTrigger> = {
  open: { complete: "completed", abort: "aborted", expire: "expired", fail_verification: "failed" },
  completed: {},
  aborted: {},
  expired: {},
  failed: {},
};

/** The next status of a session, or IllegalTransition. */
export const nextUploadStatus = transition("upload_session", uploadTransitions);
