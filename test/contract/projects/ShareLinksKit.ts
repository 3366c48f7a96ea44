/**
 * Contract kit for the ShareLinksRepository: `create` answers a fresh plain token that finds the
 * link again by its hash (and only that token does); a project's links are listed newest first;
 * revocation is conditional (a second one is false); `revokeCreatedBy` revokes only the user's
 * unrevoked links in the workspace (and in the given projects, never where it holds one of the
 * excepted project roles) and counts them.
 */
import { Effect } from "effect";
import type { Project } from "../../../core/projects/model/Project.js";
import type { ShareLink } from "../../../core/projects/model/ShareLink.js";
import { ShareLinksRepository } from "../../../ports/projects/ShareLinksRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedProject, idsOf, joinProject, uid, type SeedPorts } from "./fixtures.js";
import type { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import type { ProjectRole } from "../../../core/projects/model/Roles.js";
import { ShareLinkId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type ShareLinksKitPorts = ShareLinksRepository | SeedPorts;

const links = <A>(f: (r: ShareLinksRepository) => Effect.Effect<A>) => Effect.flatMap(ShareLinksRepository, f);
const ids = idsOf;

/** An unrevoked link `n` of `project`, created by `createdBy`. */
export const shareLinkRecord = (project: Project, n: number, createdBy = "user-1"): ShareLink => ({
  id: ShareLinkId.make(uid("shl", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  createdBy,
  createdAt: at(n),
  expiresAt: at(86_400_000),
  revokedAt: null,
  revokedReason: null,
  revokedBy: null,
});

const createAll = (list: ReadonlyArray<ShareLink>) => links((r) => Effect.forEach(list, (l) => r.create(l)));

/** The cases of the share links repository kit. */
export const shareLinksCases: ReadonlyArray<KitCase<ShareLinksKitPorts>> = [
  {
    name: "share links: the token create answers finds the link by its hash; no other token does",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const [token, other] = await run(createAll([shareLinkRecord(project, 1), shareLinkRecord(project, 2)]));
      t.ok(typeof token === "string" && token.length >= 32, "a long token");
      t.not(token, other, "each link has its own token");
      t.same(await run(links((r) => r.findByToken(token!))), shareLinkRecord(project, 1));
      t.equal((await run(links((r) => r.findByToken(other!))))?.id, uid("shl", 2));
      t.equal(await run(links((r) => r.findByToken(`${token}x`))), null, "a different token finds nothing");
      t.equal(await run(links((r) => r.findByToken(""))), null);
      t.same(await run(links((r) => r.find(uid("shl", 1)))), shareLinkRecord(project, 1), "by id, as written");
      t.equal(await run(links((r) => r.find(uid("shl", 9)))), null);
    },
  },
  {
    name: "share links: a project's links are listed newest first, that project's only, at most `limit`",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      await run(createAll([shareLinkRecord(a, 1), shareLinkRecord(b, 2), shareLinkRecord(a, 3), shareLinkRecord(a, 4)]));
      t.same(ids(await run(links((r) => r.listForProject(a.id, 10)))), [uid("shl", 4), uid("shl", 3), uid("shl", 1)]);
      t.same(ids(await run(links((r) => r.listForProject(a.id, 2)))), [uid("shl", 4), uid("shl", 3)]);
      t.same(ids(await run(links((r) => r.listForProject(uid("prj", 9), 10)))), []);
    },
  },
  {
    name: "share links: revoke is conditional: once true with its time and reason, then false",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const [token] = await run(createAll([shareLinkRecord(project, 1)]));
      t.equal(await run(links((r) => r.revoke(uid("shl", 1), at(100), "leaked", "admin-1"))), true);
      const revoked = await run(links((r) => r.findByToken(token!)));
      t.equal(revoked?.revokedAt?.getTime(), at(100).getTime(), "a revoked link is still found, revoked");
      t.equal(revoked?.revokedReason, "leaked");
      t.equal(revoked?.revokedBy, "admin-1", "with who revoked it");
      t.equal(await run(links((r) => r.revoke(uid("shl", 1), at(200), "again", "admin-2"))), false, "already revoked");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedReason, "leaked", "the first revocation stands");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedBy, "admin-1", "with its actor");
      t.equal(await run(links((r) => r.revoke(uid("shl", 9), T0, "unknown", "admin-1"))), false, "unknown");
    },
  },
  {
    name: "share links: revokeCreatedBy revokes the user's unrevoked links of the workspace only, and counts them",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const elsewhere = await run(seedProject(2, 3));
      await run(
        createAll([
          shareLinkRecord(a, 1),
          shareLinkRecord(b, 2),
          shareLinkRecord(a, 3, "user-2"),
          shareLinkRecord(elsewhere, 4),
          shareLinkRecord(a, 5),
        ]),
      );
      await run(links((r) => r.revoke(uid("shl", 5), at(10), "earlier", "admin-1")));
      const req = { workspaceId: a.workspaceId, userId: "user-1", at: at(100), reason: "member removed", revokedBy: "owner-1" };
      t.equal(await run(links((r) => r.revokeCreatedBy({ ...req, projectIds: [b.id] }))), 1, "only in the given projects");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedAt, null, "outside the given projects: untouched");
      t.equal(await run(links((r) => r.revokeCreatedBy(req))), 1, "the rest of the user's unrevoked links there");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedReason, "member removed");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedBy, "owner-1", "the change's actor is recorded");
      t.equal((await run(links((r) => r.find(uid("shl", 5)))))?.revokedReason, "earlier", "an already revoked link keeps its revocation");
      t.equal((await run(links((r) => r.find(uid("shl", 3)))))?.revokedAt, null, "another user's link stays");
      t.equal((await run(links((r) => r.find(uid("shl", 4)))))?.revokedAt, null, "another workspace's link stays");
      t.equal(await run(links((r) => r.revokeCreatedBy(req))), 0, "nothing left");
    },
  },
  {
    name: "share links: revokeCreatedBy with exceptProjectRoles keeps the user's links of projects where it holds one of those roles",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(1, 3));
      const role = (project: Project, projectRole: ProjectRole): ProjectMember => ({ workspaceId: project.workspaceId, projectId: project.id, userId: "user-1", role: projectRole, addedBy: "owner-1", createdAt: T0 });
      await run(Effect.forEach([role(a, "contributor"), role(b, "viewer")], joinProject));
      await run(createAll([shareLinkRecord(a, 1), shareLinkRecord(b, 2), shareLinkRecord(c, 3)]));
      const req = { workspaceId: a.workspaceId, userId: "user-1", at: at(100), reason: "role_changed", revokedBy: "owner-1" };
      t.equal(await run(links((r) => r.revokeCreatedBy({ ...req, exceptProjectRoles: ["admin", "contributor"] }))), 2, "where it holds none of the roles, or no membership");
      t.equal((await run(links((r) => r.find(uid("shl", 1)))))?.revokedAt, null, "the link of a project it contributes to stays");
      t.equal((await run(links((r) => r.find(uid("shl", 2)))))?.revokedReason, "role_changed", "a viewer's project: revoked");
      t.equal((await run(links((r) => r.find(uid("shl", 3)))))?.revokedReason, "role_changed", "no membership: revoked");
      t.equal(await run(links((r) => r.revokeCreatedBy({ ...req, exceptProjectRoles: [] }))), 1, "no role excepts nothing");
    },
  },
];

/** Runs the share links repository kit. */
export const shareLinksSuite = (options: SuiteOptions<ShareLinksKitPorts>): Promise<unknown> => runCases(options, shareLinksCases);
