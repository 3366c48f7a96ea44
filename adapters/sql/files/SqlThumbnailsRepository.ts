/** ThumbnailsRepository over Kysely (both dialects); the version id is the key, so a second insert answers false. */
import { Effect } from "effect";
import { ThumbnailRecord } from "../../../core/files/model/Thumbnail.js";
import type { ThumbnailsRepository } from "../../../ports/files/ThumbnailsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { runWrite } from "./sqlErrors.js";

/** Builds the thumbnails repository over `db`. */
export const makeSqlThumbnailsRepository = (db: SqlDatabase): ThumbnailsRepository => {
  const thumbnails = rowCodec(ThumbnailRecord, featuresFor(db));
  // The whole record's insert, compiled once.
  const insertThumbnail = compiledInsert("fs_thumbnails", thumbnails);
  return {
    insert: (thumbnail) => runWrite(db, (ex) => insertThumbnail(ex, thumbnail).then(() => true), false),
    find: (workspaceId, versionId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("fs_thumbnails").selectAll().where("workspace_id", "=", workspaceId).where("version_id", "=", versionId).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : thumbnails.fromRow(row)))),
  };
};
