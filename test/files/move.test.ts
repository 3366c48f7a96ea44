/**
 * Spec rule 5 and the PATCH rules: rename and move need the expected version (428 without, 412
 * with `current` when stale), a free name among active siblings (409 name_taken), and never make
 * a node its own descendant (409 move_into_descendant). Under real concurrency on Postgres,
 * crossing moves (A into B and B into A at once) let exactly one through and never store a cycle;
 * two renames to one free name: one wins.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { forEachFilesDialect } from "./support.js";
import { filesRuntime, workspaceWithDrive, type FilesEnv } from "./support.js";

const folder = (env: FilesEnv, parentId: string, name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
const move = (env: FilesEnv, nodeId: string, expectedVersion: number | undefined, change: { name?: string; parentId?: string }) =>
  env.attempt(moveNode({ userId: "ann", workspaceId: "ws1", nodeId, expectedVersion, name: change.name ?? null, parentId: change.parentId ?? null }));

/** True when following parents from every node ends at the root without repeating. */
const acyclic = async (env: FilesEnv): Promise<boolean> => {
  const rows = await env.db.db.selectFrom("fs_nodes").select(["id", "parent_id"]).where("workspace_id", "=", "ws1").execute();
  const parent = new Map(rows.map((r) => [r.id as string, r.parent_id as string | null]));
  for (const start of parent.keys()) {
    const seen = new Set<string>();
    let at: string | null = start;
    while (at !== null) {
      if (seen.has(at)) return false;
      seen.add(at);
      at = parent.get(at) ?? null;
    }
  }
  return true;
};

t.test("rename and move need If-Match: 428 without, 412 with the current node when stale, 200 and version + 1 when it matches", (t) =>
  forEachFilesDialect(t, "if-match", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const a = await folder(env, root, "a");
    t.match(await move(env, a.id, undefined, { name: "b" }), { ok: false, error: { code: "precondition_required" } });
    t.match(await move(env, a.id, 7, { name: "b" }), { ok: false, error: { code: "version_mismatch", current: { version: 1, name: "a" } } });
    t.match(await move(env, a.id, 1, { name: "b" }), { ok: true, value: { name: "b", version: 2 } });
    t.match(await move(env, a.id, 1, { name: "c" }), { ok: false, error: { code: "version_mismatch" } }, "the old version is stale now");
  }),
);

t.test("a name taken among active siblings is 409 name_taken, for create, rename and move", (t) =>
  forEachFilesDialect(t, "name taken", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const a = await folder(env, root, "a");
    const b = await folder(env, root, "b");
    const inner = await folder(env, a.id, "b");
    t.match(await env.attempt(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "a" })), { ok: false, error: { code: "name_taken" } });
    t.match(await move(env, b.id, 1, { name: "a" }), { ok: false, error: { code: "name_taken" } });
    t.match(await move(env, inner.id, 1, { parentId: root }), { ok: false, error: { code: "name_taken" } }, "moving into a folder with that name");
    t.match(await move(env, inner.id, 1, { parentId: root, name: "c" }), { ok: true, value: { parentId: root, name: "c" } }, "move and rename at once");
  }),
);

t.test("a node never becomes its own descendant: 409 move_into_descendant", (t) =>
  forEachFilesDialect(t, "cycle", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const a = await folder(env, root, "a");
    const b = await folder(env, a.id, "b");
    const c = await folder(env, b.id, "c");
    t.match(await move(env, a.id, 1, { parentId: c.id }), { ok: false, error: { code: "move_into_descendant" } });
    t.match(await move(env, a.id, 1, { parentId: a.id }), { ok: false, error: { code: "move_into_descendant" } }, "nor its own child");
    t.match(await move(env, root, 1, { name: "x" }), { ok: false, error: { code: "root_immutable" } }, "the root stays put");
    t.ok(await acyclic(env));
  }),
);

t.test("crossing moves at once (A into B, B into A): exactly one succeeds, the other 409, no cycle stored", (t) =>
  forEachFilesDialect(t, "crossing moves", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    for (let round = 0; round < 8; round++) {
      const a = await folder(env, root, `a${round}`);
      const b = await folder(env, root, `b${round}`);
      const [ab, ba] = await Promise.all([move(env, a.id, 1, { parentId: b.id }), move(env, b.id, 1, { parentId: a.id })]);
      const oks = [ab, ba].filter((r) => r.ok).length;
      t.equal(oks, 1, `round ${round}: exactly one move succeeds`);
      const loser = ab.ok ? ba : ab;
      t.ok(!loser.ok && ["move_into_descendant", "concurrent_move"].includes(loser.error.code), `round ${round}: the other is 409 (${loser.ok ? "" : loser.error.code})`);
    }
    t.ok(await acyclic(env), "no cycle was ever stored");
  }),
);

t.test("two renames to one free name at once: one wins, the other 409 name_taken", (t) =>
  forEachFilesDialect(t, "rename race", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    for (let round = 0; round < 8; round++) {
      const a = await folder(env, root, `x${round}`);
      const b = await folder(env, root, `y${round}`);
      const [ra, rb] = await Promise.all([move(env, a.id, 1, { name: `free${round}` }), move(env, b.id, 1, { name: `free${round}` })]);
      t.equal([ra, rb].filter((r) => r.ok).length, 1, `round ${round}: one wins`);
      const loser = ra.ok ? rb : ra;
      t.match(loser, { ok: false, error: { code: "name_taken" } });
      const named = await db.db.selectFrom("fs_nodes").select("id").where("name", "=", `free${round}`).execute();
      t.equal(named.length, 1, "one node has the name");
    }
  }),
);

t.test("the database refuses two active siblings with one name", (t) =>
  forEachFilesDialect(t, "unique names", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await folder(env, root, "a");
    const b = await folder(env, root, "b");
    await t.rejects(db.db.updateTable("fs_nodes").set({ name: "a" }).where("id", "=", b.id).execute(), "the partial UNIQUE index refuses it");
  }),
);
