/**
 * Role changes are membership changes (spec, Authentication 4): "Sessions and share links are
 * revoked when membership changes"; (1) "Tenant and project object authorization applies on every
 * route and on every socket subscription". A user whose workspace or project role is lowered
 * keeps no share link to a project it may no longer share, and its live subscriptions are told
 * to re-check access — SQLite and Postgres.
 */
import t from "tap";
import { addProjectMember, createProject } from "../../core/projects/Projects.js";
import { accessSharedProject, createShareLink } from "../../core/projects/ShareLinks.js";
import { addWorkspaceMember, createWorkspace } from "../../core/projects/Workspaces.js";
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
