/**
 * Role changes are membership changes (spec, Authentication 4): "Sessions and share links are
 * revoked when membership changes"; (1) "Tenant and project object authorization applies on every
 * route and on every socket subscription". A user whose workspace or project role is lowered
 * keeps no share link to a project it may no longer share, and its live subscriptions are told
 * to re-check access — SQLite and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { addProjectMember, createProject, revokeProjectMembership } from "../../core/projects/Projects.js";
import { accessSharedProject, createShareLink } from "../../core/projects/ShareLinks.js";
import { addWorkspaceMember, createWorkspace, removeWorkspaceMember } from "../../core/projects/Workspaces.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

t.test(
  "Authentication 4: share links are revoked when membership changes — an owner demoted to member loses its links to projects it no longer sees",
  (t) =>
    forEachDialect(t, "owner demoted to member", async (t, db) => {
      const { run, attempt, notices } = projectsRuntime(t, db);
      const a = newUser();
      const b = newUser();
      const { workspace } = await run(createWorkspace(a, { name: "Acme" }));
      const hidden = (await run(createProject(a, workspace.id, { name: "Hidden" }))).project;
      const shared = (await run(createProject(a, workspace.id, { name: "Shared" }))).project;
      await run(addWorkspaceMember(a, workspace.id, { userId: b.userId, role: "owner" }));
      await run(addProjectMember(a, shared.id, { userId: b.userId, role: "contributor" }));
      const hiddenLink = await run(createShareLink(b, hidden.id, {}));
      const sharedLink = await run(createShareLink(b, shared.id, {}));
      t.match(await attempt(accessSharedProject(hiddenLink.token, { limit: 10 })), { ok: true }, "an owner's link reads before the demotion");
      notices.length = 0;

      await run(addWorkspaceMember(a, workspace.id, { userId: b.userId, role: "member", reason: "stepped down" }));

      t.match(
        await attempt(accessSharedProject(hiddenLink.token, { limit: 10 })),
        { ok: false, error: { _tag: "NotFound" } },
        "the link to a project B no longer sees answers as revoked",
      );
      t.match(
        await attempt(accessSharedProject(sharedLink.token, { limit: 10 })),
        { ok: true, value: { project: { id: shared.id } } },
        "the link to a project B still shares (contributor) keeps working",
      );
      const stored = await db.db.selectFrom("pm_share_links").select(["id", "revoked_at"]).where("id", "=", hiddenLink.link.id).executeTakeFirstOrThrow();
      t.not(stored.revoked_at, null, "the hidden project's link row is revoked");
      t.match(notices, [{ type: "access_changed", userId: b.userId }], "access_changed is published for B after the demotion");
    }),
);

t.test(
  "Authentication 4: share links are revoked when membership changes — a contributor downgraded to viewer loses the links it made",
  (t) =>
    forEachDialect(t, "contributor downgraded to viewer", async (t, db) => {
      const { run, attempt, notices } = projectsRuntime(t, db);
      const owner = newUser();
      const dev = newUser();
      const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
      const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
      await run(addWorkspaceMember(owner, workspace.id, { userId: dev.userId, role: "member" }));
      await run(addProjectMember(owner, project.id, { userId: dev.userId, role: "contributor" }));
      const made = await run(createShareLink(dev, project.id, {}));
      const ownersLink = await run(createShareLink(owner, project.id, {}));
      notices.length = 0;

      await run(addProjectMember(owner, project.id, { userId: dev.userId, role: "viewer", reason: "read only from now on" }));

      t.match(await attempt(createShareLink(dev, project.id, {})), { ok: false, error: { _tag: "Forbidden" } }, "a viewer cannot create links");
      t.match(
        await attempt(accessSharedProject(made.token, { limit: 10 })),
        { ok: false, error: { _tag: "NotFound" } },
        "the link the contributor made answers as revoked",
      );
      t.match(await attempt(accessSharedProject(ownersLink.token, { limit: 10 })), { ok: true }, "another user's link keeps working");
      const stored = await db.db.selectFrom("pm_share_links").select(["revoked_at"]).where("id", "=", made.link.id).executeTakeFirstOrThrow();
      t.not(stored.revoked_at, null, "its row is revoked");
      t.match(notices, [{ type: "access_changed", userId: dev.userId, channel: `project:${project.id}` }], "access_changed is published for the user");
    }),
);

t.test(
  "Authentication 2: a guest reaches explicitly shared projects only and is never project admin — a member demoted to guest loses its project-admin role",
  (t) =>
    forEachDialect(t, "member demoted to guest", async (t, db) => {
      const { run, attempt } = projectsRuntime(t, db);
      const owner = newUser();
      const lead = newUser();
      const other = newUser();
      const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
      const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
      await run(addWorkspaceMember(owner, workspace.id, { userId: lead.userId, role: "member" }));
      await run(addWorkspaceMember(owner, workspace.id, { userId: other.userId, role: "member" }));
      await run(addProjectMember(owner, project.id, { userId: lead.userId, role: "admin" }));
      t.match(await attempt(addProjectMember(lead, project.id, { userId: other.userId, role: "viewer" })), { ok: true }, "an admin manages members");

      await run(addWorkspaceMember(owner, workspace.id, { userId: lead.userId, role: "guest", reason: "contract ended" }));

      const membership = await run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, lead.userId)));
      t.not(membership?.role, "admin", "the guest is not project admin");
      t.equal(membership?.role, "contributor", "it keeps the highest role a guest may hold");
      t.match(
        await attempt(addProjectMember(lead, project.id, { userId: other.userId, role: "contributor" })),
        { ok: false, error: { _tag: "Forbidden" } },
        "and cannot manage the project's members",
      );
      t.match(
        await attempt(revokeProjectMembership(lead, project.id, { userId: other.userId })),
        { ok: false, error: { _tag: "Forbidden" } },
        "nor revoke them",
      );
      const audit = await db.db
        .selectFrom("pm_membership_audit")
        .selectAll()
        .where("user_id", "=", lead.userId)
        .where("project_id", "=", project.id)
        .where("role", "=", "contributor")
        .execute();
      t.equal(audit.length, 1, "one audit record for the downgrade");
      t.match(audit[0], { action: "project_member.added", role: "contributor", actor_id: owner.userId, reason: "contract ended" }, "the downgrade is audited with actor and reason");
    }),
);

t.test(
  "Authentication 2: a guest is never project admin — a demotion to guest racing a grant of project admin never leaves a guest admin",
  (t) =>
    forEachDialect(t, "demotion races an admin grant", async (t, db) => {
      const { run, attempt } = projectsRuntime(t, db);
      const owner = newUser();
      const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
      const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
      const rounds = 12;
      let granted = 0;
      for (let round = 0; round < rounds; round++) {
        const user = newUser();
        await run(addWorkspaceMember(owner, workspace.id, { userId: user.userId, role: "member" }));
        const [, grant] = await Promise.all([
          attempt(addWorkspaceMember(owner, workspace.id, { userId: user.userId, role: "guest" })),
          attempt(addProjectMember(owner, project.id, { userId: user.userId, role: "admin" })),
        ]);
        if (grant.ok) granted += 1;
        const membership = await run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, user.userId)));
        t.not(membership?.role, "admin", `round ${round}: the guest is not project admin`);
      }
      t.comment(`${granted} of ${rounds} grants committed before the demotion`);
    }),
);

t.test(
  "A workspace keeps at least one owner: two owners demoting or removing each other at once never leave it without one",
  (t) =>
    forEachDialect(t, "owners race", async (t, db) => {
      const { run, attempt } = projectsRuntime(t, db);
      const rounds = 12;
      let refused = 0;
      for (let round = 0; round < rounds; round++) {
        const a = newUser();
        const b = newUser();
        const { workspace } = await run(createWorkspace(a, { name: `Acme ${round}` }));
        await run(addWorkspaceMember(a, workspace.id, { userId: b.userId, role: "owner" }));
        // Even rounds demote, odd rounds remove: both take an owner away.
        const outcomes = await Promise.all(
          round % 2 === 0
            ? [
                attempt(addWorkspaceMember(a, workspace.id, { userId: b.userId, role: "member" })),
                attempt(addWorkspaceMember(b, workspace.id, { userId: a.userId, role: "member" })),
              ]
            : [
                attempt(removeWorkspaceMember(a, workspace.id, { userId: b.userId })),
                attempt(removeWorkspaceMember(b, workspace.id, { userId: a.userId })),
              ],
        );
        refused += outcomes.filter((o) => !o.ok).length;
        t.equal(outcomes.filter((o) => o.ok).length, 1, `round ${round}: exactly one of the two changes commits`);
        const owners = await run(Effect.flatMap(WorkspacesRepository, (r) => r.countOwners(workspace.id)));
        t.equal(owners, 1, `round ${round}: the workspace still has an owner`);
        for (const o of outcomes) {
          if (!o.ok) t.ok(o.error !== undefined, `round ${round}: the loser is a typed refusal (409 last owner or 404/403), never a defect`);
        }
      }
      t.equal(refused, rounds, "every round refused one of the two");
    }),
);

t.test(
  "Authorization is checked on every route: two project admins removing each other at once — the second acts only if still an admin when it commits",
  (t) =>
    forEachDialect(t, "admins race", async (t, db) => {
      const { run, attempt } = projectsRuntime(t, db);
      const owner = newUser();
      const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
      const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
      const rounds = 12;
      for (let round = 0; round < rounds; round++) {
        const a = newUser();
        const b = newUser();
        for (const u of [a, b]) {
          await run(addWorkspaceMember(owner, workspace.id, { userId: u.userId, role: "member" }));
          await run(addProjectMember(owner, project.id, { userId: u.userId, role: "admin" }));
        }
        // Even rounds remove, odd rounds demote to viewer: both take the other's admin right away.
        const outcomes = await Promise.all(
          round % 2 === 0
            ? [
                attempt(revokeProjectMembership(a, project.id, { userId: b.userId })),
                attempt(revokeProjectMembership(b, project.id, { userId: a.userId })),
              ]
            : [
                attempt(addProjectMember(a, project.id, { userId: b.userId, role: "viewer" })),
                attempt(addProjectMember(b, project.id, { userId: a.userId, role: "viewer" })),
              ],
        );
        t.equal(outcomes.filter((o) => o.ok).length, 1, `round ${round}: exactly one of the two admins acted`);
        for (const o of outcomes) if (!o.ok) t.ok(o.error !== undefined, `round ${round}: the other is refused (404 or 403), never a defect`);
        const admins = await Promise.all(
          [a, b].map((u) => run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, u.userId))).then((m) => m?.role === "admin")),
        );
        t.equal(admins.filter(Boolean).length, 1, `round ${round}: one of them is still an admin`);
      }
    }),
);
