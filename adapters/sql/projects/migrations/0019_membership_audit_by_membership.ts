/**
 * Projects migration 19: a membership event's version is the number of that membership's audit
 * rows (`ProjectsRepository.countMembershipChanges`, counted in every membership change), so the
 * audit is indexed by membership — workspace, user, project — instead of being read whole.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX pm_membership_audit_membership ON pm_membership_audit (workspace_id, user_id, project_id)`];

/** Migration 19 of the projects module. */
export const projectsMigration0019MembershipAuditByMembership: Migration = {
  version: 19,
  name: "membership_audit_by_membership",
  sqlite: statements,
  postgres: statements,
};
