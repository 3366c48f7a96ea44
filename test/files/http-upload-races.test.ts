/**
 * The upload session's one-winner claims, raced over HTTP on the reference server (SQLite, and
 * Postgres with its pool of real parallel connections). Spec, States: an upload session is
 * completed (quota reserved → used, one quarantined version) or removed (quota released), once;
 * Endpoints rule 2 "Upload completion is keyed by session and checksum"; Resources, Node "Names
 * are unique among active siblings"; QuotaReservation.
 *   - complete and abort of one session at once: exactly one settles it, and the drive's
 *     counters are exactly what that one settlement leaves;
 *   - the same complete sent five times at once: one version, its bytes counted once;
 *   - two sessions of the same new name completing at once in a folder both members edit: one
 *     file, the other 409 name_taken with its session still open (at the root, names are unique
 *     per member: test/files/http-hidden-root-names.test.ts).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { startFilesServer, type Json, type User, eachDialect } from "./http-support.js";
import { bytesOf, sha256 } from "./support.js";

t.test("an upload session settles once under racing completes and aborts; a name is taken by one of two racing completions", (t) =>
  eachDialect(t, "upload races", async (t, dialect) => {
    const { server, call, user, join, workspace, putPart, published } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const drive = async () => (await call(`/v1/workspaces/${ws.id}/drive`, { user: ann })).body;
    /** An open session of `bytes` under `name`, its one part stored. */
    const stored = async (owner: User, name: string, bytes: Uint8Array, parentId = ws.root): Promise<string> => {
      const session = await call("/v1/uploads", {
        user: owner,
        headers: { "Idempotency-Key": randomUUID() },
        body: { parent_id: parentId, name, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain" },
      });
      if (session.status !== 201) throw new Error(`upload: ${session.status} ${JSON.stringify(session.body)}`);
      const put = await putPart((session.body.parts as Json[])[0]!, bytes);
      if (put.status >= 300) throw new Error(`part: ${put.status}`);
      return String(session.body.id);
    };

    for (let round = 0; round < 8; round++) {
      const bytes = bytesOf(`race ${round}: complete or abort`);
      const id = await stored(ann, `race-${round}.txt`, bytes);
      const before = await drive();
      const [completed, aborted] = await Promise.all([
        call(`/v1/uploads/${id}/complete`, { user: ann, body: { sha256: sha256(bytes) } }),
        call(`/v1/uploads/${id}`, { user: ann, method: "DELETE" }),
      ]);
      const after = await drive();
      const session = (await call(`/v1/uploads/${id}`, { user: ann })).body;
      if (completed.status === 202) {
        t.match(aborted, { status: 409, body: { code: "upload_not_open" } }, `round ${round}: the complete won, the abort is refused`);
        t.equal(session.status, "completed");
        t.same([after.used_bytes, after.reserved_bytes], [Number(before.used_bytes) + bytes.length, Number(before.reserved_bytes) - bytes.length], "its reservation became used bytes");
        // The losing abort must not remove the objects the completed version is stored in.
        const nodeId = String(completed.body.node_id);
        await published(ann, nodeId);
        const download = await call(`/v1/nodes/${nodeId}/downloads`, { user: ann, body: {} });
        t.equal(download.status, 201);
        const got = await fetch(`${server.url}${String(download.body.url)}`);
        t.equal(got.status, 200, "the version's bytes are still stored");
        t.same(new Uint8Array(await got.arrayBuffer()), bytes, "and whole");
      } else {
        t.equal(aborted.status, 204, `round ${round}: the abort won`);
        t.match(completed, { status: 409, body: { code: "upload_not_open" } }, "the complete is refused");
        t.equal(session.status, "aborted");
        t.same([after.used_bytes, after.reserved_bytes], [before.used_bytes, Number(before.reserved_bytes) - bytes.length], "its reservation was released, nothing used");
      }
    }

    const once = bytesOf("completed five times at once");
    const onceId = await stored(ann, "once.txt", once);
    const before = await drive();
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(`/v1/uploads/${onceId}/complete`, { user: ann, body: { sha256: sha256(once) } })));
    t.same(answers.map((a) => a.status), [202, 202, 202, 202, 202], "every repeat answers");
    t.equal(new Set(answers.map((a) => a.body.id)).size, 1, "the same version");
    const versions = (await call(`/v1/nodes/${String(answers[0]!.body.node_id)}/versions`, { user: ann })).body.data as Json[];
    t.equal(versions.length, 1, "one version stored");
    const after = await drive();
    t.equal(Number(after.used_bytes) - Number(before.used_bytes), once.length, "its bytes counted once");

    const bob = await user();
    await join(ann, ws.id, bob);
    const shared = String((await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } })).body.id);
    t.equal((await call(`/v1/nodes/${shared}/permissions`, { user: ann, body: { user_id: bob.id, role: "editor" } })).status, 200, "both members edit the folder");
    const mine = bytesOf("ann's same-name file");
    const his = bytesOf("bob's same-name file");
    const annId = await stored(ann, "same.txt", mine, shared);
    const bobId = await stored(bob, "same.txt", his, shared);
    const [a, b] = await Promise.all([
      call(`/v1/uploads/${annId}/complete`, { user: ann, body: { sha256: sha256(mine) } }),
      call(`/v1/uploads/${bobId}/complete`, { user: bob, body: { sha256: sha256(his) } }),
    ]);
    t.same([a.status, b.status].sort(), [202, 409], "one completion takes the name, the other is refused");
    const loser = a.status === 409 ? { answer: a, id: annId, owner: ann } : { answer: b, id: bobId, owner: bob };
    t.equal(loser.answer.body.code, "name_taken");
    t.equal((await call(`/v1/uploads/${loser.id}`, { user: loser.owner })).body.status, "open", "the loser's session stays open");
    const winner = a.status === 202 ? ann : bob;
    const children = ((await call(`/v1/nodes/${shared}/children`, { user: winner })).body.data as Json[]).filter((n) => n.name === "same.txt");
    t.equal(children.length, 1, "one active node of that name");
    t.equal(Number((await server.core.database.db.selectFrom("fs_nodes").select((eb) => eb.fn.countAll().as("n")).where("workspace_id", "=", ws.id).where("name", "=", "same.txt").executeTakeFirstOrThrow()).n), 1, "and only one was written");
  }),
);
