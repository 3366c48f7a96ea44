/**
 * Contract kit for the ProjectsRepository: a project reads back as written; a project membership
 * is unique per (project, user); removals answer whether there was one and stay within the
 * workspace; membership and workspace lookups are scoped; the audit log is append-only, and
 * counts the changes of one membership (its version).
 */
import { Effect } from "effect";
import type { MembershipAudit } from "../../../core/projects/model/MembershipAudit.js";
import type { Project } from "../../../core/projects/model/Project.js";
import type { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import type { ProjectRole } from "../../../core/projects/model/Roles.js";
import { ProjectsRepository } from "../../../ports/projects/ProjectsRepository.js";
import { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { joinProject, projectRecord, seedProject, uid, type SeedPorts } from "./fixtures.js";
import { MembershipAuditId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type ProjectsKitPorts = SeedPorts;

const projects = <A>(f: (r: ProjectsRepository) => Effect.Effect<A>) => Effect.flatMap(ProjectsRepository, f);
const member = (project: Project, userId: string, role: ProjectRole, createdAt: Date = T0): ProjectMember => ({
  workspaceId: project.workspaceId,
  projectId: project.id,
  userId,
  role,
  addedBy: "owner-1",
  createdAt,
});
const upsert = joinProject;
const upsertAll = (list: ReadonlyArray<ProjectMember>) => Effect.forEach(list, upsert);
const sorted = (ids: ReadonlyArray<string>) => [...ids].sort();

/** The cases of the projects repository kit. */
export const projectsCases: ReadonlyArray<KitCase<ProjectsKitPorts>> = [
  {
    name: "projects: a project reads back as written; an unknown id finds nothing",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      t.same(await run(projects((r) => r.findProject(project.id))), projectRecord(uid("ws", 1), uid("prj", 1)));
      t.equal(await run(projects((r) => r.findProject(uid("prj", 2)))), null);
    },
  },
  {
    name: "projects: findProjectWithRoles reads the project with the caller's workspace and project roles, and only the caller's",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const sibling = await run(seedProject(1, 2));
      const elsewhere = await run(seedProject(2, 3));
      await run(upsert(member(project, "user-1", "commenter")));
      await run(upsert(member(sibling, "user-2", "admin")));
      await run(Effect.flatMap(WorkspacesRepository, (w) => w.upsertMember({ workspaceId: elsewhere.workspaceId, userId: "user-3", role: "owner", createdAt: T0 })));
      const withRoles = (projectId: string, userId: string) => run(projects((r) => r.findProjectWithRoles(projectId, userId)));
      t.same(await withRoles(project.id, "user-1"), { project, workspaceRole: "member", projectRole: "commenter" }, "a project member");
      t.same(await withRoles(sibling.id, "user-1"), { project: sibling, workspaceRole: "member", projectRole: null }, "a workspace member outside the project");
      t.same(await withRoles(project.id, "user-2"), { project, workspaceRole: "member", projectRole: null }, "another project's role does not count here");
      t.same(await withRoles(elsewhere.id, "user-1"), { project: elsewhere, workspaceRole: null, projectRole: null }, "another workspace: no role");
      t.same(await withRoles(elsewhere.id, "user-3"), { project: elsewhere, workspaceRole: "owner", projectRole: null }, "an owner without a project membership");
      t.equal(await withRoles(uid("prj", 9), "user-1"), null, "an unknown project");
    },
  },
  {
    name: "projects: upsertMember creates a membership once per (project, user), then changes its role",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const sibling = await run(seedProject(1, 2));
      t.equal(await run(upsert(member(project, "user-1", "viewer"))), "created");
      t.equal(await run(upsert(member(sibling, "user-1", "admin"))), "created", "another project is another membership");
      t.equal(await run(upsert(member(project, "user-1", "contributor", at(9)))), "updated");
      t.equal((await run(projects((r) => r.findMember(project.id, "user-1"))))?.role, "contributor");
      t.equal((await run(projects((r) => r.findMember(sibling.id, "user-1"))))?.role, "admin", "the other membership is untouched");
      t.equal(await run(projects((r) => r.findMember(project.id, "user-2"))), null);
    },
  },
  {
    name: "projects: removeMember answers whether there was a membership (a repeated revocation is false)",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      await run(upsert(member(project, "user-1", "viewer")));
      t.equal(await run(projects((r) => r.removeMember(project.id, "user-1"))), true);
      t.equal(await run(projects((r) => r.removeMember(project.id, "user-1"))), false);
      t.equal(await run(projects((r) => r.findMember(project.id, "user-1"))), null);
    },
  },
  {
    name: "projects: removeMembershipsInWorkspace removes the user's memberships of that workspace only",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const elsewhere = await run(seedProject(2, 3));
      await run(
        upsertAll([member(a, "user-1", "viewer"), member(b, "user-1", "admin"), member(elsewhere, "user-1", "viewer"), member(a, "user-2", "viewer")]),
      );
      t.same(sorted(await run(projects((r) => r.removeMembershipsInWorkspace(a.workspaceId, "user-1")))), sorted([a.id, b.id]));
      t.not(await run(projects((r) => r.findMember(elsewhere.id, "user-1"))), null, "another workspace's membership stays");
      t.not(await run(projects((r) => r.findMember(a.id, "user-2"))), null, "another user's membership stays");
      t.same(await run(projects((r) => r.removeMembershipsInWorkspace(a.workspaceId, "user-1"))), [], "nothing left to remove");
    },
  },
  {
    name: "projects: lowerRolesInWorkspace sets the new role on the user's memberships of one workspace in the given roles, and answers their projects",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(1, 3));
      const elsewhere = await run(seedProject(2, 4));
      await run(
        upsertAll([member(c, "user-1", "admin"), member(a, "user-1", "admin"), member(b, "user-1", "viewer"), member(elsewhere, "user-1", "admin"), member(a, "user-2", "admin")]),
      );
      const lower = (userId: string, workspaceId: string, from: ReadonlyArray<ProjectRole>) =>
        run(projects((r) => r.lowerRolesInWorkspace(userId, workspaceId, from, "contributor")));
      const role = (projectId: string, userId: string) => run(projects((r) => r.findMember(projectId, userId))).then((m) => m?.role);
      t.same(await lower("user-1", a.workspaceId, []), [], "no role asked: none changed");
      t.same(sorted(await lower("user-1", a.workspaceId, ["admin"])), sorted([a.id, c.id]), "its admin memberships of the workspace");
      t.same([await role(a.id, "user-1"), await role(c.id, "user-1")], ["contributor", "contributor"], "now contributor");
      t.equal(await role(b.id, "user-1"), "viewer", "a membership in another role stays");
      t.equal(await role(elsewhere.id, "user-1"), "admin", "another workspace's membership stays");
      t.equal(await role(a.id, "user-2"), "admin", "another user's membership stays");
      t.same(await lower("user-1", a.workspaceId, ["admin"]), [], "nothing left to lower");
      t.same(await lower("user-3", a.workspaceId, ["admin"]), [], "a user without memberships");
    },
  },
  {
    name: "projects: visibleProjectIds lists, by id and once each, every project of the workspaces the user owns and the projects it is a member of",
    run: async (t, run) => {
      const owned1 = await run(seedProject(1, 1));
      const owned2 = await run(seedProject(1, 2));
      const joined = await run(seedProject(2, 3));
      const unjoined = await run(seedProject(2, 4));
      const stranger = await run(seedProject(3, 5));
      await run(upsertAll([member(joined, "user-1", "viewer"), member(owned1, "user-1", "admin"), member(stranger, "user-2", "admin")]));
      // Owner of workspace 1 (joining a project there made it a plain member first).
      await run(Effect.flatMap(WorkspacesRepository, (w) => w.upsertMember({ workspaceId: owned1.workspaceId, userId: "user-1", role: "owner", createdAt: T0 })));
      const visible = (workspaceId?: string) => run(projects((r) => r.visibleProjectIds("user-1", workspaceId)));
      t.same(await visible(), sorted([owned1.id, owned2.id, joined.id]), "owned workspace's projects and the membership, the owned one with a membership once");
      t.same(await visible(owned1.workspaceId), sorted([owned1.id, owned2.id]), "within the owned workspace");
      t.same(await visible(joined.workspaceId), [joined.id], "within a workspace where it is a member: its project only, not " + unjoined.id);
      t.same(await visible(stranger.workspaceId), [], "another workspace");
      t.same(await run(projects((r) => r.visibleProjectIds("user-9"))), [], "a user with nothing");
    },
  },
  {
    name: "projects: projectIdsOfWorkspaces lists every project of the given workspaces only",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(2, 3));
      await run(seedProject(3, 4));
      t.same(sorted(await run(projects((r) => r.projectIdsOfWorkspaces([a.workspaceId, c.workspaceId])))), sorted([a.id, b.id, c.id]));
      t.same(await run(projects((r) => r.projectIdsOfWorkspaces([]))), [], "no workspace, no project");
    },
  },
  {
    name: "projects: an audit record is appended once; its id cannot be written again",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const record: MembershipAudit = {
        id: MembershipAuditId.make(uid("aud", 1)),
        workspaceId: project.workspaceId,
        projectId: project.id,
        actorId: "owner-1",
        userId: "user-1",
        action: "removed",
        role: null,
        reason: "left the team",
        createdAt: T0,
      };
      await run(projects((r) => r.appendAudit(record)));
      const again = await run(projects((r) => r.appendAudit({ ...record, reason: "rewritten" })).pipe(Effect.exit));
      t.equal(again._tag, "Failure", "the audit log is append-only");
    },
  },
  {
    name: "projects: countMembershipChanges counts one membership's audit records: its project, or its workspace alone, and its user; by project in one read; appendAudits appends many",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(1, 2));
      const elsewhere = await run(seedProject(2, 3));
      let n = 0;
      const audit = (p: Project, projectId: string | null, userId: string): MembershipAudit => ({
        id: MembershipAuditId.make(uid("aud", ++n)),
        workspaceId: p.workspaceId,
        projectId: projectId as MembershipAudit["projectId"],
        actorId: "owner-1",
        userId,
        action: projectId === null ? "workspace_member.added" : "project_member.added",
        role: "viewer",
        reason: "joined",
        createdAt: at(n),
      });
      const count = (p: Project, projectId: string | null, userId: string) =>
        run(projects((r) => r.countMembershipChanges({ workspaceId: p.workspaceId, projectId, userId })));
      t.equal(await count(project, project.id, "user-1"), 0, "a membership never changed: 0");
      await run(
        projects((r) =>
          Effect.forEach(
            [
              audit(project, project.id, "user-1"),
              audit(project, project.id, "user-1"),
              audit(project, null, "user-1"),
              audit(other, other.id, "user-1"),
              audit(project, project.id, "user-2"),
              audit(elsewhere, elsewhere.id, "user-1"),
              audit(elsewhere, null, "user-1"),
            ],
            (a) => r.appendAudit(a),
            { discard: true },
          ),
        ),
      );
      t.same(
        await run(projects((r) => r.countProjectMembershipChangesInWorkspace(project.workspaceId, "user-1"))),
        new Map([
          [project.id, 2],
          [other.id, 1],
        ]),
        "by project of one workspace and user, the workspace membership's records apart",
      );
      // Many records at once, more than one multi-row insert holds.
      const many = Array.from({ length: 2_500 }, () => audit(other, other.id, "user-4"));
      await run(projects((r) => r.appendAudits(many)));
      t.equal(await count(other, other.id, "user-4"), 2_500, "appendAudits appends every record");
      t.same(await run(projects((r) => r.countProjectMembershipChangesInWorkspace(other.workspaceId, "user-4"))), new Map([[other.id, 2_500]]));
      t.same(await run(projects((r) => r.countProjectMembershipChangesInWorkspace(other.workspaceId, "user-9"))), new Map(), "a user without records");
      t.equal(await count(project, project.id, "user-1"), 2, "the project membership's own records");
      t.equal(await count(project, null, "user-1"), 1, "the workspace membership: records without a project only");
      t.equal(await count(other, other.id, "user-1"), 1, "another project of the workspace counts apart");
      t.equal(await count(project, project.id, "user-2"), 1, "another user counts apart");
      t.equal(await count(elsewhere, null, "user-1"), 1, "another workspace counts apart");
    },
  },
];

/** Runs the projects repository kit. */
export const projectsSuite = (options: SuiteOptions<ProjectsKitPorts>): Promise<unknown> => runCases(options, projectsCases);
