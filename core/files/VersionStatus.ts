/**
 * The file version machine (spec: states and transitions). A completed upload makes a
 * quarantined version; a clean verdict publishes it (and makes it current); an infected one
 * blocks it; a scan that keeps failing ends `scan_failed` after bounded retries. A security
 * operator may release (publish) a blocked or scan_failed version after review, or block one.
 */
import type { VersionStatus } from "./model/FileVersion.js";
import { statesAllowing, transition, type TransitionTable } from "./StateMachine.js";

/** What moves a version. */
export type VersionTrigger = "scan_clean" | "scan_infected" | "scan_gave_up" | "operator_release" | "operator_block";

export const versionTransitions: TransitionTable<VersionStatus, VersionTrigger> = {
  quarantined: { scan_clean: "published", scan_infected: "blocked", scan_gave_up: "scan_failed", operator_block: "blocked" },
  published: { operator_block: "blocked" },
  blocked: { operator_release: "published" },
  scan_failed: { operator_release: "published", operator_block: "blocked" },
};

/** The next status of a version, or IllegalTransition. */
export const nextVersionStatus = transition("file_version", versionTransitions);

/** The statuses a trigger may start from. */
export const versionStatusesAllowing = (trigger: VersionTrigger) => statesAllowing(versionTransitions, trigger);

/** Only a published version is ever downloadable (spec rule: a quarantined version never yields a download). */
export const isDownloadable = (status: VersionStatus): boolean => status === "published";
