/** DriveRepository over Kysely (both dialects). */
import { Effect } from "effect";
import { sql } from "kysely";
import { Drive } from "../../../core/files/model/Drive.js";
import { Node } from "../../../core/files/model/Node.js";
import type { DriveRepository } from "../../../ports/files/DriveRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { runWrite } from "./sqlErrors.js";

/** Builds the drive repository over `db`. */
export const makeSqlDriveRepository = (db: SqlDatabase): DriveRepository => {
  const f = featuresFor(db);
  const drives = rowCodec(Drive, f);
  const nodes = rowCodec(Node, f);
  // The drive's reads (plain and locked), counters and first inserts of every upload and change, compiled once.
  const selectDrive = compiledOnce<{ workspaceId: string }>((ex, p) => ex.selectFrom("fs_drives").selectAll().where("workspace_id", "=", p("workspaceId")));
  const selectDriveForUpdate = compiledOnce<{ workspaceId: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("fs_drives").selectAll().where("workspace_id", "=", p("workspaceId")), true),
  );
  const adjustDrive = compiledOnce<{ workspaceId: string; reserved: number; used: number; at: unknown }>((ex, p) =>
    ex
      .updateTable("fs_drives")
      .set({
        reserved_bytes: sql`reserved_bytes + ${p("reserved")}`,
        used_bytes: sql`used_bytes + ${p("used")}`,
        updated_at: p("at"),
      })
      .where("workspace_id", "=", p("workspaceId")),
  );
  const bumpChangeSeq = compiledOnce<{ workspaceId: string }>((ex, p) =>
    ex
      .updateTable("fs_drives")
      .set({ change_seq: sql`change_seq + 1` })
      .where("workspace_id", "=", p("workspaceId"))
      .returning("change_seq"),
  );
  const insertDrive = compiledInsert("fs_drives", drives);
  const insertNode = compiledInsert("fs_nodes", nodes);
  const select = (workspaceId: string, forUpdate: boolean) =>
    runQuery(db, (ex) => (forUpdate ? selectDriveForUpdate : selectDrive)(ex, { workspaceId })).pipe(
      Effect.map(({ rows: [row] }) => (row === undefined ? null : drives.fromRow(row))),
    );
  return {
    create: (drive, root) =>
      Effect.asVoid(
        runWrite(
          db,
          async (ex) => {
            await insertDrive(ex, drive);
            await insertNode(ex, root);
          },
          undefined,
        ),
      ),
    find: (workspaceId) => select(workspaceId, false),
    lock: (workspaceId) => select(workspaceId, true),
    // Under the drive's lock, decided by the core before: nobody reads the answer (sent with the next statement on Postgres).
    adjust: (workspaceId, delta, at) => sendStatement(db, adjustDrive, { workspaceId, reserved: delta.reserved, used: delta.used, at: f.timeToDb(at) }),
    setQuota: (workspaceId, quotaBytes, at) =>
      runQuery(db, (ex) =>
        ex.updateTable("fs_drives").set({ quota_bytes: quotaBytes, updated_at: f.timeToDb(at) }).where("workspace_id", "=", workspaceId).executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    nextChangeSeq: (workspaceId) =>
      runQuery(db, async (ex) => {
        const { rows: [row] } = await bumpChangeSeq(ex, { workspaceId });
        if (row === undefined) throw new Error(`no drive for workspace ${workspaceId}`);
        return row;
      }).pipe(Effect.map((r) => toNumber(r.change_seq))),
    usage: (workspaceId) =>
      runQuery(db, async (ex) => {
        // A restored version shares its original's object: count each stored object once.
        const versions = await ex
          .selectFrom((qb) =>
            qb.selectFrom("fs_file_versions").select(["object_key", "size_bytes"]).distinct().where("workspace_id", "=", workspaceId).as("objects"),
          )
          .select((eb) => eb.fn.coalesce(eb.fn.sum("size_bytes"), sql`0`).as("bytes"))
          .executeTakeFirstOrThrow();
        const open = await ex
          .selectFrom("fs_upload_sessions")
          .select((eb) => eb.fn.coalesce(eb.fn.sum("reserved_bytes"), sql`0`).as("bytes"))
          .where("workspace_id", "=", workspaceId)
          .where("status", "=", "open")
          .executeTakeFirstOrThrow();
        const extracting = await ex
          .selectFrom("fs_extractions")
          .select((eb) => eb.fn.coalesce(eb.fn.sum("reserved_bytes"), sql`0`).as("bytes"))
          .where("workspace_id", "=", workspaceId)
          .where("status", "=", "running")
          .executeTakeFirstOrThrow();
        return { versionBytes: toNumber(versions.bytes), openReservedBytes: toNumber(open.bytes) + toNumber(extracting.bytes) };
      }),
    workspaces: (afterWorkspaceId, limit) =>
      runQuery(db, (ex) => {
        const q = ex.selectFrom("fs_drives").select("workspace_id").orderBy("workspace_id").limit(limit);
        return (afterWorkspaceId === null ? q : q.where("workspace_id", ">", afterWorkspaceId)).execute();
      }).pipe(Effect.map((rows) => rows.map((row) => String(row.workspace_id)))),
    pruneThrough: (workspaceId, seq) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_drives")
          .set({ pruned_through_seq: sql`CASE WHEN ${seq} > change_seq THEN change_seq WHEN ${seq} > pruned_through_seq THEN ${seq} ELSE pruned_through_seq END` })
          .where("workspace_id", "=", workspaceId)
          .returning("pruned_through_seq")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? 0 : toNumber(r.pruned_through_seq)))),
    bumpAclEpoch: (workspaceId) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_drives")
          .set({ acl_epoch: sql`acl_epoch + 1` })
          .where("workspace_id", "=", workspaceId)
          .returning("acl_epoch")
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.acl_epoch))),
  };
};
