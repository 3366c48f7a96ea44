/**
 * Spec (files: authorization includes membership): removing a member from a workspace aborts their
 * open upload sessions there, as DELETE /v1/uploads/:id does (audit 2, F5). After the removal
 * and the relay, the ex-member's part PUT is refused (local store: 409 upload_not_open; S3: the
 * multipart upload is aborted, so the presigned part URL fails), and the drive's reserved bytes
 * drop to what the other members hold. Another member's open session is untouched. SQLite and
 * Postgres, local store and S3 (s3rver).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { type Dialect, type TapTest } from "../support/databases.js";
import { startS3Server } from "../support/s3Server.js";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";

type Store = "local" | "s3";

const start = async (t: TapTest, dialect: Dialect, store: Store) => {
  const env = store === "s3" ? (await startS3Server(t)).env : {};
  // The worker is off: the host's consumers and jobs run when the test drains.
  return startFilesServer(t, dialect, { ...env, WORKER_IN_PROCESS: "false" });
};

for (const store of ["local", "s3"] as const) {
  t.test(`removing a member aborts their open uploads of the workspace, releasing the reservation and refusing their part grants (${store} store)`, (t) =>
    eachDialect(t, `member removal aborts uploads (${store})`, async (t, dialect) => {
      const { server, call, user, workspace, putPart, drain } = await start(t, dialect, store);
      const ann = await user();
      const ben = await user();
      const carl = await user();
      const ws = await workspace(ann, [ben, carl]);
      const open = async (who: typeof ann, name: string, bytes: Uint8Array) => {
        const session = await call("/v1/uploads", {
          user: who,
          headers: { "Idempotency-Key": randomUUID() },
          body: { parent_id: ws.root, name, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: [sha256(bytes)] },
        });
        t.equal(session.status, 201, `${name} opened`);
        return { id: String(session.body.id), grant: (session.body.parts as Json[])[0]! };
      };
      const carlBytes = new TextEncoder().encode("SALARIES 2027");
      const benBytes = new TextEncoder().encode("minutes");
      const carls = await open(carl, "carl.txt", carlBytes);
      const bens = await open(ben, "ben.txt", benBytes);
      t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: carlBytes.length + benBytes.length } }, "both reserved");

      t.equal((await call(`/v1/workspaces/${ws.id}/members/${carl.id}`, { user: ann, method: "DELETE" })).status, 204, "ann removes carl");
      await drain();

      const refused = await putPart(carls.grant, carlBytes);
      if (store === "local") {
        t.equal(refused.status, 409, "carl's part grant is refused");
        t.match(await refused.json(), { code: "upload_not_open" });
      } else {
        await refused.arrayBuffer();
        const storeAborts = await server.core.database.db.selectFrom("jobs").select(["key", "status"]).where("kind", "=", "files.upload_store_abort").execute();
        t.same(storeAborts, [{ key: `upload:${carls.id}`, status: "done" }], "the multipart upload of carl's session was aborted in the store, and no other");
      }
      t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: benBytes.length } }, "the drive reserves only what ben holds");

      t.ok((await putPart(bens.grant, benBytes)).status < 300, "ben's part grant still stores");
      t.match(await call(`/v1/uploads/${bens.id}`, { user: ben }), { status: 200, body: { status: "open" } }, "ben's session is untouched");
    }),
  );
}
