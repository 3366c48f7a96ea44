/**
 * Spec (Resources, ShareLink): "Token is high-entropy, stored only as a hash, expiring,
 * revocable"; (Authentication 4) "Share tokens are high-entropy, stored as hashes, expiring and
 * revocable". Every share link expires: one created without `expires_at` gets the default
 * lifetime (FilesSettings.shareLinkDefaultTtlMs), an expiry past the maximum lifetime
 * (shareLinkMaxTtlMs) is 422, and files migration 13 gives the links stored without one an
 * expiry; since files migration 14 the database refuses a link without an expiry, inserted or
 * updated (NOT NULL on Postgres, triggers on SQLite) — SQLite and Postgres.
 */
import t from "tap";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { makeSqlShareLinksRepository } from "../../adapters/sql/files/SqlShareLinksRepository.js";
import { Effect, Exit } from "effect";
import { ShareLinkId, NodeId, WorkspaceId } from "../../core/files/model/Ids.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createShareLink, resolveShare } from "../../core/files/ShareLinks.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { forEachDialect, testModules } from "../support/databases.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { filesRuntime, filesTestModules, forEachFilesDialect, sha256, workspaceWithDrive, workspaceWithDriveRows } from "./support.js";

const day = 24 * 3600 * 1000;

/** An fs_share_links row of ann's in workspace ws1 on `nodeId`, as written straight to the table. */
const shareLinkRow = (db: SqlDatabase, nodeId: string, id: string, createdAt: Date, expiresAt: Date | null) => ({
  id,
  workspace_id: "ws1",
  node_id: nodeId,
  token_hash: sha256(id),
  allow_download: db.dialect === "sqlite" ? 1 : true,
  created_by: "ann",
  created_at: db.features.timeToDb(createdAt),
  expires_at: expiresAt === null ? null : db.features.timeToDb(expiresAt),
  revoked_at: null,
});

t.test("a share link is always expiring: without expires_at it gets the default lifetime, past the maximum lifetime it is refused (422)", (t) =>
  forEachFilesDialect(t, "share links expire", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const folder = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));

    const { link, token } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, expiresAt: null, allowDownload: true }));
    t.not(link.expiresAt, null, "a link created without expires_at still expires");
    t.equal((link.expiresAt?.getTime() ?? 0) - link.createdAt.getTime(), defaultFilesSettings.shareLinkDefaultTtlMs, "after the default lifetime");
    t.equal(defaultFilesSettings.shareLinkDefaultTtlMs, 30 * day, "30 days by default");
    const row = await db.db.selectFrom("fs_share_links").select(["expires_at"]).where("id", "=", link.id).executeTakeFirstOrThrow();
    t.equal(db.features.timeFromDb(row.expires_at).getTime(), link.expiresAt?.getTime(), "stored with its expiry");
    t.match(await env.run(resolveShare(token, null)), { node: { id: folder.id } }, "and it works until then");

    const tooLong = new Date(Date.now() + defaultFilesSettings.shareLinkMaxTtlMs + day);
    t.match(
      await env.attempt(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, expiresAt: tooLong, allowDownload: true })),
      { ok: false, error: { _tag: "ValidationFailed", errors: [{ path: "expires_at" }] } },
      "an expiry past the maximum lifetime is refused",
    );
    const longest = new Date(Date.now() + defaultFilesSettings.shareLinkMaxTtlMs - day);
    t.match(
      await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, expiresAt: longest, allowDownload: true })),
      { link: { expiresAt: longest } },
      "one within it is kept as asked",
    );

  }),
);

t.test("the database refuses a share link without an expiry (share tokens are expiring): an insert or an update to a null expiry is refused", (t) =>
  forEachFilesDialect(t, "share link expiry not null", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const now = new Date();
    const row = (id: string, expiresAt: Date | null) => shareLinkRow(db, root, id, now, expiresAt);
    await t.rejects(db.db.insertInto("fs_share_links").values(row("no-expiry", null)).execute(), "an insert without an expiry is refused");
    t.same(await db.db.selectFrom("fs_share_links").select("id").execute(), [], "nothing was stored");

    const expiry = new Date(now.getTime() + day);
    await db.db.insertInto("fs_share_links").values(row("dated", expiry)).execute();
    await t.rejects(db.db.updateTable("fs_share_links").set({ expires_at: null }).where("id", "=", "dated").execute(), "an update to a null expiry is refused");
    await db.db.updateTable("fs_share_links").set({ revoked_at: db.features.timeToDb(now) }).where("id", "=", "dated").execute();
    const stored = await db.db.selectFrom("fs_share_links").select(["expires_at", "revoked_at"]).where("id", "=", "dated").executeTakeFirstOrThrow();
    t.equal(db.features.timeFromDb(stored.expires_at).getTime(), expiry.getTime(), "the link keeps its expiry");
    t.not(stored.revoked_at, null, "other updates (a revocation) still apply");

    // Through the repository as well: a link without an expiry is not stored.
    const repository = makeSqlShareLinksRepository(db);
    const exit = await Effect.runPromiseExit(
      repository.create({ id: ShareLinkId.make("00000006-0000-4000-8000-000000000001"), workspaceId: WorkspaceId.make("ws1"), nodeId: NodeId.make(root), allowDownload: true, createdBy: "ann", createdAt: now, expiresAt: null, revokedAt: null }),
    );
    t.ok(Exit.isFailure(exit), "the repository's insert of a link without an expiry fails");
    t.same((await db.db.selectFrom("fs_share_links").select("id").execute()).map((r) => r.id), ["dated"], "and stores nothing");
  }),
);

const beforeThirteen = { name: "files", migrations: filesMigrations.filter((m) => m.version < 13) };

forEachDialect(
  t,
  "migration 13 gives every share link stored without an expiry one, 30 days after the migration",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDriveRows(env, db, "ws1", "ann");
    const created = new Date(Date.now() - 400 * day);
    const link = (id: string, expiresAt: Date | null) => shareLinkRow(db, root, id, created, expiresAt);
    const kept = new Date(Date.now() + 3 * day);
    await db.db.insertInto("fs_share_links").values([link("forever", null), link("dated", kept)]).execute();
    const before = Date.now();
    await migrate(db, filesTestModules);
    const rows = await db.db.selectFrom("fs_share_links").select(["id", "expires_at"]).orderBy("id").execute();
    const expiry = (id: string) => db.features.timeFromDb(rows.find((r) => r.id === id)!.expires_at).getTime();
    t.equal(expiry("dated"), kept.getTime(), "a link with an expiry keeps it");
    t.ok(expiry("forever") >= before + 30 * day - 5000 && expiry("forever") <= Date.now() + 30 * day + 5000, "a link without one expires 30 days after the migration");
  },
  [...testModules, beforeThirteen],
);

const beforeFourteen = { name: "files", migrations: filesMigrations.filter((m) => m.version < 14) };

forEachDialect(
  t,
  "migration 14 gives a share link stored without an expiry since migration 13 one, 30 days after the migration, then refuses such links",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDriveRows(env, db, "ws1", "ann");
    const created = new Date(Date.now() - day);
    await db.db
      .insertInto("fs_share_links")
      .values({
        id: "late",
        workspace_id: "ws1",
        node_id: root,
        token_hash: sha256("late"),
        allow_download: (db.dialect === "sqlite" ? 1 : true),
        created_by: "ann",
        created_at: db.features.timeToDb(created),
        expires_at: null,
        revoked_at: null,
      })
      .execute();
    const before = Date.now();
    await migrate(db, filesTestModules);
    const row = await db.db.selectFrom("fs_share_links").select(["expires_at"]).where("id", "=", "late").executeTakeFirstOrThrow();
    const expiry = db.features.timeFromDb(row.expires_at).getTime();
    t.ok(expiry >= before + 30 * day - 5000 && expiry <= Date.now() + 30 * day + 5000, "the link expires 30 days after the migration");
    await t.rejects(db.db.updateTable("fs_share_links").set({ expires_at: null }).where("id", "=", "late").execute(), "and its expiry cannot be removed");
  },
  [...testModules, beforeFourteen],
);
