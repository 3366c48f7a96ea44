/**
 * The spec's races over HTTP on the reference server (SQLite, and Postgres with its pool of real
 * parallel connections): 20 parallel upload creations asking for twice the free space — exactly
 * those that fit get 201, the rest 413 quota_exceeded, and the counter is exact; crossing moves
 * (A into B and B into A at once) — one 200, the other 409, never a cycle.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { startFilesServer, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";

t.test("parallel upload creations never pass the quota; crossing moves: one wins, the other is 409", (t) =>
  eachDialect(t, "races", async (t, dialect) => {
    const { call, user, workspace } = await startFilesServer(t, dialect, { FILES_DEFAULT_QUOTA_BYTES: "1000" });
    const ann = await user();
    const ws = await workspace(ann);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("/v1/uploads", {
          user: ann,
          headers: { "Idempotency-Key": randomUUID() },
          body: { parent_id: ws.root, name: `f${i}.bin`, size_bytes: 100, sha256: sha256(`f${i}`) },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    t.equal(statuses.filter((s) => s === 201).length, 10, "exactly the ten that fit are opened");
    t.ok(answers.filter((a) => a.status !== 201).every((a) => a.status === 413 && a.body.code === "quota_exceeded"), "the rest are 413 quota_exceeded");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: 1000, used_bytes: 0 } }, "the counter is exact");

    const a = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "A", kind: "folder" } });
    const b = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "B", kind: "folder" } });
    const [intoB, intoA] = await Promise.all([
      call(`/v1/nodes/${String(a.body.id)}`, { user: ann, method: "PATCH", body: { parent_id: b.body.id }, headers: { "If-Match": "1" } }),
      call(`/v1/nodes/${String(b.body.id)}`, { user: ann, method: "PATCH", body: { parent_id: a.body.id }, headers: { "If-Match": "1" } }),
    ]);
    t.same([intoB.status, intoA.status].sort(), [200, 409], "one move wins, the other is refused");
    t.ok([intoB, intoA].some((m) => m.status === 409 && m.body.code === "move_into_descendant"), "as a move into its own descendant");
    const after = await Promise.all([a, b].map((n) => call(`/v1/nodes/${String(n.body.id)}`, { user: ann })));
    t.ok(after.some((n) => n.body.parent_id === ws.root), "one of them is still at the root: no cycle");
  }),
);

/*
 * Spec (Authentication 5): "revocation bumps the epoch". An upgrade and a downgrade of one
 * member's grant racing on real connections: whichever commits last, a member left with less
 * than before finds the epoch bumped (the grant takes the drive lock before it reads the role it
 * replaces, so neither can miss the other's write).
 */
t.test("racing grants on one member: whenever the lower role wins, the ACL epoch was bumped", (t) =>
  eachDialect(t, "grant races", async (t, dialect) => {
    const { server, call, user, workspace, aclEpoch } = await startFilesServer(t, dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const folderId = String(folder.body.id);
    const grant = (role: string) => call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: ben.id, role } });
    const epoch = () => aclEpoch(ws.id);
    for (let round = 0; round < 8; round++) {
      // From viewer: the upgrade to owner and a re-grant of viewer race; viewer committing last is a downgrade from owner.
      await grant("viewer");
      const before = await epoch();
      const answers = await Promise.all([grant("owner"), grant("viewer")]);
      t.same(answers.map((a) => a.status), [200, 200]);
      const final = ((await call(`/v1/nodes/${folderId}/permissions`, { user: ann })).body.data as Array<{ user_id: string; role: string }>).find((g) => g.user_id === ben.id)?.role;
      t.ok(final === "owner" || (final === "viewer" && (await epoch()) > before), `round ${round}: ben ended ${String(final)}; left at viewer after owner, the epoch was bumped`);
    }
  }),
);
