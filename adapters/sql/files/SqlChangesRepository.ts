/**
 * ChangesRepository over Kysely (both dialects). A feed page reads the log in batches after the
 * cursor (at least 100 changes, or the page size) and keeps the changes whose node the caller can
 * see: the batch's nodes walk up their ancestors (a recursive CTE, `up CROSS JOIN fs_nodes` so
 * SQLite seeks by key) to a grant of the caller. The work per page is bounded by the batches
 * (at most 20) times the tree depth, not by the size of the caller's visible subtree; a caller
 * who sees little of a busy workspace gets short pages with `has_more` until the log is read.
 * A `node.left_view` change names its one recipient and goes to that user only, while its node
 * is out of their view (walked like the others; the root is in every member's view); a
 * `node.entered_view` change likewise, while its node is in their view. A reader who is no longer
 * a member reads only the left-view changes addressed to them (`addressedOnly`, by the
 * `fs_changes_recipient` index), unwalked.
 */
import { Effect, Schema } from "effect";
import { sql } from "kysely";
import { Change, ChangeType } from "../../../core/files/model/Change.js";
import { Node } from "../../../core/files/model/Node.js";
import type { ChangesRepository } from "../../../ports/files/ChangesRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Changes read per batch at least, batches per page at most, and the deepest ancestor walk. */
const minBatch = 100;
const maxBatches = 20;
const maxAncestorDepth = 256;

/** The type of a change that tells its one recipient to drop a node. */
const leftView: ChangeType = "node.left_view";

/** Builds the changes repository over `db`. */
export const makeSqlChangesRepository = (db: SqlDatabase): ChangesRepository => {
  const f = featuresFor(db);
  const changes = rowCodec(Change, f);
  // The stored row: the change and the one user a left- or entered-view change is addressed to.
  const changeRows = rowCodec(Schema.Struct({ ...Change.fields, recipientId: Schema.NullOr(Schema.String) }), f);
  const nodes = rowCodec(Node, f);
  // The append of every recorded change, compiled once.
  const insertChange = compiledInsert("fs_changes", changeRows);
  return {
    append: (change, recipientId) => sendStatement(db, insertChange, { ...change, recipientId: recipientId ?? null }),
    list: (req) =>
      runQuery(db, async (ex) => {
        const batchSize = Math.max(req.limit, minBatch);
        const addressedOnly = req.addressedOnly === true;
        const items: Array<{ change: Change; node: Node }> = [];
        let after = req.afterSeq;
        for (let batch = 0; batch < maxBatches; batch++) {
          const rows = await sql<Record<string, unknown>>`
            SELECT n.*, c.seq AS change_seq, c.type AS change_type, c.version_id AS change_version_id,
                   c.actor_id AS change_actor_id, c.created_at AS change_created_at, c.recipient_id AS change_recipient_id
            FROM fs_changes c JOIN fs_nodes n ON n.workspace_id = c.workspace_id AND n.id = c.node_id
            WHERE c.workspace_id = ${req.workspaceId} AND c.seq > ${after}${addressedOnly ? sql` AND c.recipient_id = ${req.userId} AND c.type = ${leftView}` : sql``}
            ORDER BY c.seq
            LIMIT ${batchSize}`.execute(ex);
          if (rows.rows.length === 0) return { items, scannedThroughSeq: after, exhausted: true };
          // A change addressed to one user is theirs alone: a left-view one only while its node is
          // out of their view (a re-granted or re-invited reader sees the node as it is now), an
          // entered-view one only while it is in their view (the root: always, as every member's);
          // every other change goes to whoever can see its node.
          const walked = addressedOnly ? [] : rows.rows.filter((row) => row.change_recipient_id === null || row.change_recipient_id === req.userId);
          const ids = [...new Set(walked.map((row) => String(row.id)))];
          // Each of the batch's nodes walks up its ancestors until a grant of the caller (bounded by depth).
          const visible = ids.length === 0 ? { rows: [] } : await sql<{ start: string }>`
            WITH RECURSIVE up (start, id, parent_id, depth) AS (
              SELECT n.id, n.id, n.parent_id, 0 FROM fs_nodes n WHERE n.workspace_id = ${req.workspaceId} AND n.id IN (${sql.join(ids)})
              UNION ALL
              SELECT u.start, p.id, p.parent_id, u.depth + 1 FROM up u CROSS JOIN fs_nodes p
              WHERE p.id = u.parent_id AND p.workspace_id = ${req.workspaceId} AND u.depth < ${maxAncestorDepth}
            )
            SELECT DISTINCT u.start AS start FROM up u
            WHERE EXISTS (SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = ${req.workspaceId} AND a.node_id = u.id AND a.user_id = ${req.userId})`.execute(ex);
          const seen = new Set(visible.rows.map((row) => String(row.start)));
          for (const row of rows.rows) {
            after = toNumber(row.change_seq);
            const inView = seen.has(String(row.id)) || row.parent_id === null;
            const shown =
              row.change_recipient_id === null
                ? seen.has(String(row.id))
                : row.change_recipient_id === req.userId && (addressedOnly || (row.change_type === leftView ? !inView : inView));
            if (!shown) continue;
            items.push({
              node: nodes.fromRow(row),
              change: changes.fromRow({
                workspace_id: row.workspace_id,
                seq: row.change_seq,
                node_id: row.id,
                type: row.change_type,
                version_id: row.change_version_id,
                actor_id: row.change_actor_id,
                created_at: row.change_created_at,
              }),
            });
            if (items.length === req.limit) return { items, scannedThroughSeq: after, exhausted: false };
          }
          if (rows.rows.length < batchSize) return { items, scannedThroughSeq: after, exhausted: true };
        }
        return { items, scannedThroughSeq: after, exhausted: false };
      }),
    readersOf: (workspaceId, seq) =>
      runQuery(db, async (ex) => {
        // One statement: the change, and the users with a grant on its node or an ancestor (only
        // its recipient, for an addressed change); a row per reader, or one with no user.
        const rows = await sql<{ type: string; recipient_id: string | null; parent_id: string | null; user_id: string | null }>`
          WITH RECURSIVE ch AS (
            SELECT c.type, c.recipient_id, n.id AS node_id, n.parent_id
            FROM fs_changes c JOIN fs_nodes n ON n.workspace_id = c.workspace_id AND n.id = c.node_id
            WHERE c.workspace_id = ${workspaceId} AND c.seq = ${seq}
          ),
          up (id, parent_id, depth) AS (
            SELECT ch.node_id, ch.parent_id, 0 FROM ch
            UNION ALL
            SELECT p.id, p.parent_id, u.depth + 1 FROM up u CROSS JOIN fs_nodes p
            WHERE p.id = u.parent_id AND p.workspace_id = ${workspaceId} AND u.depth < ${maxAncestorDepth}
          ),
          readers AS (
            -- By node id alone (the key's prefix; the walk stays in the workspace): with the
            -- workspace too, SQLite seeks fs_acl_entries_user and reads every grant of the workspace.
            SELECT DISTINCT a.user_id FROM up u CROSS JOIN fs_acl_entries a WHERE a.node_id = u.id
          )
          SELECT ch.type, ch.recipient_id, ch.parent_id, r.user_id
          FROM ch LEFT JOIN readers r ON ch.recipient_id IS NULL OR r.user_id = ch.recipient_id
          ORDER BY r.user_id`.execute(ex);
        const change = rows.rows[0];
        if (change === undefined) return [];
        const users = rows.rows.flatMap((row) => (row.user_id === null ? [] : [String(row.user_id)]));
        if (change.recipient_id === null) return users;
        // Addressed: a left-view change while the node is out of the recipient's view, an entered-view one while in it (the root: always).
        const inView = users.length > 0 || change.parent_id === null;
        return (change.type === leftView ? !inView : inView) ? [change.recipient_id] : [];
      }),
    find: (workspaceId, seq) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_changes")
          .select(["workspace_id", "seq", "node_id", "type", "version_id", "actor_id", "created_at"])
          .where("workspace_id", "=", workspaceId)
          .where("seq", "=", seq)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : changes.fromRow(row)))),
    hasAddressedTo: (workspaceId, userId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_changes")
          .select("seq")
          .where("workspace_id", "=", workspaceId)
          .where("recipient_id", "=", userId)
          .where("type", "=", leftView)
          .limit(1)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => row !== undefined)),
    lastAddressedTo: (workspaceId, userId, nodeId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_changes")
          .select("type")
          .where("workspace_id", "=", workspaceId)
          .where("recipient_id", "=", userId)
          .where("node_id", "=", nodeId)
          .orderBy("seq", "desc")
          .limit(1)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : Schema.decodeUnknownSync(ChangeType)(row.type)))),
    lastSeqBefore: (workspaceId, at) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_changes")
          .select((eb) => eb.fn.coalesce(eb.fn.max("seq"), sql`0`).as("seq"))
          .where("workspace_id", "=", workspaceId)
          .where("created_at", "<", f.timeToDb(at))
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.seq))),
    deleteThrough: (workspaceId, seq) =>
      runQuery(db, (ex) => ex.deleteFrom("fs_changes").where("workspace_id", "=", workspaceId).where("seq", "<=", seq).executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numDeletedRows)),
      ),
  };
};
