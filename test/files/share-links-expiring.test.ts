/**
 * Spec (Resources, ShareLink): "Token is high-entropy, stored only as a hash, expiring,
 * revocable"; (Authentication 4) "Share tokens are high-entropy, stored as hashes, expiring and
 * revocable". Every share link expires: one created without `expires_at` gets the default
 * lifetime (FilesSettings.shareLinkDefaultTtlMs), an expiry past the maximum lifetime
 * (shareLinkMaxTtlMs) is 422, and files migration 13 gives the links stored without one an
 * expiry — SQLite and Postgres.
 */
import t from "tap";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createShareLink, resolveShare } from "../../core/files/ShareLinks.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { filesRuntime, filesTestModules, forEachFilesDialect, sha256, workspaceWithDrive } from "./support.js";

const day = 24 * 3600 * 1000;

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

const beforeThirteen = { name: "files", migrations: filesMigrations.filter((m) => m.version < 13) };

forEachDialect(
  t,
  "migration 13 gives every share link stored without an expiry one, 30 days after the migration",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const created = new Date(Date.now() - 400 * day);
    const link = (id: string, expiresAt: Date | null) => ({
      id,
      workspace_id: "ws1",
      node_id: root,
      token_hash: sha256(id),
      allow_download: (db.dialect === "sqlite" ? 1 : true),
      created_by: "ann",
      created_at: db.features.timeToDb(created),
      expires_at: expiresAt === null ? null : db.features.timeToDb(expiresAt),
      revoked_at: null,
    });
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
