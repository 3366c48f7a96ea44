/**
 * Spec (files: authorization includes membership; States: an upload session is completed or
 * removed, quota released, once): a member removal aborts the removed user's open uploads
 * (audit 2, F5) with the same one-winner settlement as every other abort. Raced on SQLite and on
 * Postgres with its pool of real parallel connections: the removal against the session's expiry,
 * and two deliveries of one removal against each other. Each session settles once, the drive's
 * reserved bytes drop by its size once (to what the other member holds), and the store side is
 * scheduled only by the settlement the removal won.
 */
import { Effect } from "effect";
import t from "tap";
import { expireUpload } from "../../core/files/ExpireUpload.js";
import { abortRemovedMemberUploads } from "../../core/files/MemberRemoval.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { Transactions } from "../../ports/Transactions.js";
import { clockAhead } from "../support/clockAhead.js";
import { bytesOf, driveCounters, filesRuntime, forEachFilesDialect, uploadParts, workspaceWithDrive } from "./support.js";

const removal = { workspaceId: "ws1", userId: "cid", actorId: "ann" };
const removeInTransaction = Effect.flatMap(Transactions, (tx) => tx.run(abortRemovedMemberUploads(removal)));

t.test("a member removal racing the expiry or another delivery of itself settles each upload once and releases its reservation once", (t) =>
  forEachFilesDialect(t, "member-removal-upload-race", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid"]);
    const bens = await uploadParts(env, { userId: "ben", workspaceId: "ws1", parentId: root, name: "ben.txt", bytes: bytesOf("ben keeps this open") });
    const later = clockAhead(defaultFilesSettings.uploadTtlMs + 60_000);
    for (let round = 0; round < 6; round++) {
      const bytes = bytesOf(`cid's upload of round ${round}`);
      const cids = await uploadParts(env, { userId: "cid", workspaceId: "ws1", parentId: root, name: `cid-${round}.txt`, bytes });
      t.equal((await driveCounters(env, "ws1")).reserved, bens.sizeBytes + bytes.length, `round ${round}: both reserved`);
      const rival = round % 2 === 0 ? Effect.asVoid(Effect.withClock(expireUpload("ws1", cids.id), later)) : removeInTransaction;
      await Promise.all([env.runtime.runPromise(removeInTransaction), env.runtime.runPromise(rival)]);
      t.equal((await driveCounters(env, "ws1")).reserved, bens.sizeBytes, `round ${round}: released once, ben's reservation kept`);
      const row = await db.db.selectFrom("fs_upload_sessions").select(["status", "reserved_bytes"]).where("id", "=", cids.id).executeTakeFirstOrThrow();
      t.ok(["aborted", "expired"].includes(String(row.status)), `round ${round}: settled (${String(row.status)})`);
      t.equal(Number(row.reserved_bytes), 0);
      const storeAborts = await db.db.selectFrom("jobs").select("key").where("kind", "=", "files.upload_store_abort").where("key", "=", `upload:${cids.id}`).execute();
      t.equal(storeAborts.length, row.status === "aborted" ? 1 : 0, `round ${round}: the store side is scheduled by the removal's settlement only`);
    }
    const benRow = await db.db.selectFrom("fs_upload_sessions").select("status").where("id", "=", bens.id).executeTakeFirstOrThrow();
    t.equal(benRow.status, "open", "ben's session is untouched");
  }),
);
