/** ShareLinksRepository over Kysely (both dialects): 32 random bytes per token, only its SHA-256 stored. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import { ShareLink } from "../../../core/files/model/ShareLink.js";
import type { ShareLinksRepository } from "../../../ports/files/ShareLinksRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

const hashOf = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/** Builds the share links repository over `db`. */
export const makeSqlShareLinksRepository = (db: SqlDatabase): ShareLinksRepository => {
  const f = featuresFor(db);
  const links = rowCodec(ShareLink, f);
  // The whole record's insert, compiled once.
  const insertLink = compiledInsert("fs_share_links", links);
  return {
    create: (fields) =>
      Effect.gen(function* () {
        const token = randomBytes(32).toString("base64url");
        const link: ShareLink = { ...fields, tokenHash: hashOf(token).toString("hex") };
        yield* runStatement(db, insertLink, link);
        return { link, token };
      }),
    findByToken: (token) => {
      const given = hashOf(token);
      return runQuery(db, (ex) => ex.selectFrom("fs_share_links").selectAll().where("token_hash", "=", given.toString("hex")).executeTakeFirst()).pipe(
        Effect.map((row) => {
          if (row === undefined) return null;
          const stored = Buffer.from(String(row.token_hash), "hex");
          return stored.length === given.length && timingSafeEqual(stored, given) ? links.fromRow(row) : null;
        }),
      );
    },
    find: (workspaceId, id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_share_links").selectAll().where("id", "=", id).where("workspace_id", "=", workspaceId).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : links.fromRow(row))),
      ),
    listForNode: (workspaceId, nodeId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("fs_share_links").selectAll().where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId).orderBy("id", "desc").execute(),
      ).pipe(Effect.map((rows) => rows.map(links.fromRow))),
    pageForNode: (workspaceId, nodeId, afterId, limit) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("fs_share_links").selectAll().where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId);
        if (afterId !== null) q = q.where("id", "<", afterId);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(links.fromRow))),
    revoke: (workspaceId, nodeId, id, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_share_links")
          .set({ revoked_at: f.timeToDb(at) })
          .where("workspace_id", "=", workspaceId)
          .where("node_id", "=", nodeId)
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
  };
};
