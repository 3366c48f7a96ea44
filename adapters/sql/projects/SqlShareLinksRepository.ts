/**
 * The ShareLinksRepository port over `pm_share_links`. A token is 32 random bytes (base64url);
 * only its SHA-256 is stored (a fast hash suffices for a high-entropy secret). A token is found
 * by its hash through the unique index and the hashes are compared again in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import { sql } from "kysely";
import { ShareLink } from "../../../core/projects/model/ShareLink.js";
import type { ShareLinksRepository } from "../../../ports/projects/ShareLinksRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const hashOf = (token: string): Buffer => createHash("sha256").update(token).digest();

/** Builds the share link repository over `db`. */
export const makeSqlShareLinksRepository = (db: SqlDatabase): ShareLinksRepository => {
  const f = featuresFor(db);
  const links = rowCodec(ShareLink, f);
  return {
    create: (link) =>
      Effect.gen(function* () {
        const token = randomBytes(32).toString("base64url");
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("pm_share_links")
            .values({ ...links.toRow(link), token_hash: hashOf(token).toString("hex") })
            .execute(),
        );
        return token;
      }).pipe(withSpan("ShareLinksRepository.create")),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_share_links").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : links.fromRow(r))),
      ),
    findByToken: (token) => {
      const given = hashOf(token);
      return runQuery(db, (ex) =>
        ex.selectFrom("pm_share_links").selectAll().where("token_hash", "=", given.toString("hex")).executeTakeFirst(),
      ).pipe(
        Effect.map((r) => {
          if (r === undefined) return null;
          const stored = Buffer.from(String(r.token_hash), "hex");
          return stored.length === given.length && timingSafeEqual(stored, given) ? links.fromRow(r) : null;
        }),
        withSpan("ShareLinksRepository.findByToken"),
      );
    },
    listForProject: (projectId, limit, beforeId) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_share_links").selectAll().where("project_id", "=", projectId);
        if (beforeId !== undefined) query = query.where("id", "<", beforeId);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => links.fromRow(r)))),
    revoke: (id, at, reason, revokedBy) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_share_links")
          .set({ revoked_at: f.timeToDb(at), revoked_reason: reason, revoked_by: revokedBy })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) > 0)),
    revokeCreatedBy: ({ workspaceId, projectIds, exceptProjectRoles, userId, at, reason, revokedBy }) =>
      runQuery(db, (ex) => {
        let query = ex
          .updateTable("pm_share_links")
          .set({ revoked_at: f.timeToDb(at), revoked_reason: reason, revoked_by: revokedBy })
          .where("workspace_id", "=", workspaceId)
          .where("created_by", "=", userId)
          .where("revoked_at", "is", null);
        if (projectIds !== undefined) query = query.where("project_id", "in", [...projectIds]);
        if (exceptProjectRoles !== undefined && exceptProjectRoles.length > 0) {
          // One probe of pm_project_members' unique (project_id, user_id) per link of the user.
          query = query.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("pm_project_members as m")
                  .select(sql.lit(1).as("one"))
                  .whereRef("m.project_id", "=", "pm_share_links.project_id")
                  .where("m.user_id", "=", userId)
                  .where("m.role", "in", [...exceptProjectRoles]),
              ),
            ),
          );
        }
        return query.executeTakeFirst();
      }).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows)),
        withSpan("ShareLinksRepository.revokeCreatedBy"),
      ),
  };
};
