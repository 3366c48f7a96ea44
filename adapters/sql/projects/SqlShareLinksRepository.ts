/**
 * The ShareLinksRepository port over `pm_share_links`. A token is 32 random bytes (base64url);
 * only its SHA-256 is stored (a fast hash suffices for a high-entropy secret). A token is found
 * by its hash through the unique index and the hashes are compared again in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import type { ShareLink } from "../../../core/projects/ShareLinks.js";
import type { ShareLinksRepository } from "../../../ports/projects/ShareLinksRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

const hashOf = (token: string): Buffer => createHash("sha256").update(token).digest();

/* eslint-disable @typescript-eslint/no-explicit-any */
const linkFromRow = (f: DialectFeatures, r: any): ShareLink => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  createdBy: String(r.created_by),
  createdAt: f.timeFromDb(r.created_at),
  expiresAt: f.timeFromDb(r.expires_at),
  revokedAt: r.revoked_at === null ? null : f.timeFromDb(r.revoked_at),
  revokedReason: r.revoked_reason === null ? null : String(r.revoked_reason),
});

/** Builds the share link repository over `db`. */
export const makeSqlShareLinksRepository = (db: SqlDatabase): ShareLinksRepository => {
  const f = featuresFor(db);
  return {
    create: (link) =>
      Effect.gen(function* () {
        const token = randomBytes(32).toString("base64url");
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("pm_share_links")
            .values({
              id: link.id,
              workspace_id: link.workspaceId,
              project_id: link.projectId,
              created_by: link.createdBy,
              token_hash: hashOf(token).toString("hex"),
              created_at: f.timeToDb(link.createdAt),
              expires_at: f.timeToDb(link.expiresAt),
              revoked_at: null,
              revoked_reason: null,
            })
            .execute(),
        );
        return token;
      }).pipe(Effect.withSpan("ShareLinksRepository.create")),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_share_links").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : linkFromRow(f, r))),
      ),
    findByToken: (token) => {
      const given = hashOf(token);
      return runQuery(db, (ex) =>
        ex.selectFrom("pm_share_links").selectAll().where("token_hash", "=", given.toString("hex")).executeTakeFirst(),
      ).pipe(
        Effect.map((r) => {
          if (r === undefined) return null;
          const stored = Buffer.from(String(r.token_hash), "hex");
          return stored.length === given.length && timingSafeEqual(stored, given) ? linkFromRow(f, r) : null;
        }),
        Effect.withSpan("ShareLinksRepository.findByToken"),
      );
    },
    listForProject: (projectId, limit) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_share_links").selectAll().where("project_id", "=", projectId).orderBy("id", "desc").limit(limit).execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => linkFromRow(f, r)))),
    revoke: (id, at, reason) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_share_links")
          .set({ revoked_at: f.timeToDb(at), revoked_reason: reason })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) > 0)),
    revokeCreatedBy: ({ workspaceId, projectIds, userId, at, reason }) =>
      runQuery(db, (ex) => {
        let query = ex
          .updateTable("pm_share_links")
          .set({ revoked_at: f.timeToDb(at), revoked_reason: reason })
          .where("workspace_id", "=", workspaceId)
          .where("created_by", "=", userId)
          .where("revoked_at", "is", null);
        if (projectIds !== undefined) query = query.where("project_id", "in", [...projectIds]);
        return query.executeTakeFirst();
      }).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows)),
        Effect.withSpan("ShareLinksRepository.revokeCreatedBy"),
      ),
  };
};
