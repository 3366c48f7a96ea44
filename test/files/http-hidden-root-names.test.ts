/**
 * Conventions: an object whose existence the caller may not learn answers as if absent. At the
 * drive root a member sees only the nodes they hold a grant on, so a name held by a root node
 * they cannot see must not collide: root names are unique per the member who put the node there
 * (docs/decisions.md). Checked on every path that names a node at the root — folder creation,
 * upload opening and completion, rename, move, restore, archive extraction — over HTTP on both
 * dialects, with parallel creations on real connections. A member who moves a node into the
 * root becomes its owner when they hold no grant on it, as a create there makes them, so they
 * still see what they moved; a lower grant of their own is raised to their role through the old
 * place. A member whose grant on a root node they named is revoked no longer holds its name, and
 * a rename or restore racing that revocation answers 404 once it has landed (NamespaceLock.ts).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { dialects, type Dialect } from "../support/databases.js";
import { startFilesServer, eachDialect, type Json } from "./http-support.js";
import { bytesOf } from "./support.js";
import { makeZip } from "./zip.js";

const part = 8 * 1024 * 1024;

/**
 * One reference server per dialect, shared by every claim below (each makes its own users and
 * workspace), both started at once while the first claims run; closed when the file's tests end.
 */
const servers = new Map(dialects.map((dialect) => [dialect, startFilesServer(t, dialect)] as const));
const serverOf = (dialect: Dialect) => servers.get(dialect)!;

t.test("a name held by a root node the caller cannot see does not collide, on every path that names a node at the root", { jobs: 2 }, (t) =>
  eachDialect(t, "hidden root names", async (t, dialect) => {
    const { call, user, workspace, upload } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const folder = (who: typeof ann, name: string, parentId = ws.root) => call("/v1/nodes", { user: who, body: { parent_id: parentId, name, kind: "folder" } });
    const rootNames = async (who: typeof ann) => ((await call(`/v1/nodes/${ws.root}/children`, { user: who })).body.data as Json[]).map((n) => n.name).sort();

    t.equal((await folder(ann, "Layoffs 2027")).status, 201, "the owner's hidden root folder");
    t.same(await rootNames(ben), [], "the member does not see it");

    const bens = await folder(ben, "Layoffs 2027");
    t.equal(bens.status, 201, "the member creates a folder of the same name at the root");
    t.match(await folder(ben, "Layoffs 2027"), { status: 409, body: { code: "name_taken" } }, "a name the member holds at the root still collides");

    const hiddenFile = await upload(ann, ws.root, "Payroll.csv", bytesOf("salaries"), part);
    t.equal(hiddenFile.status, 202, "the owner's hidden root file");
    const bensFile = await upload(ben, ws.root, "Payroll.csv", bytesOf("my own"), part);
    t.equal(bensFile.status, 202, "the member opens and completes an upload of the same name at the root");

    await folder(ann, "Reorg");
    const draft = await folder(ben, "Draft");
    const renamed = await call(`/v1/nodes/${String(draft.body.id)}`, { user: ben, method: "PATCH", body: { name: "Reorg" }, headers: { "If-Match": "1" } });
    t.equal(renamed.status, 200, "the member renames a root folder to a hidden name");

    await folder(ann, "Merger");
    const inner = await folder(ben, "Merger", String(bens.body.id));
    const moved = await call(`/v1/nodes/${String(inner.body.id)}`, { user: ben, method: "PATCH", body: { parent_id: ws.root }, headers: { "If-Match": "1" } });
    t.equal(moved.status, 200, "the member moves a folder into the root under a hidden name");

    const old = await folder(ben, "Budget");
    t.equal((await call(`/v1/nodes/${String(old.body.id)}`, { user: ben, method: "DELETE" })).status, 204, "the member trashes a root folder");
    await folder(ann, "Budget");
    const restored = await call(`/v1/nodes/${String(old.body.id)}/restore`, { user: ben, method: "POST" });
    t.equal(restored.status, 200, "the member restores it while a hidden root folder has its name");

    t.same(await rootNames(ben), ["Budget", "Layoffs 2027", "Merger", "Payroll.csv", "Reorg"], "the member sees only their own root nodes");
    t.same(
      await rootNames(ann),
      ["Budget", "Layoffs 2027", "Merger", "Payroll.csv", "Reorg"],
      "the owner sees only theirs",
    );
  }),
);

t.test("a member who moves a node into the root still sees it: they become its owner, as a create at the root makes them; a name they hold there is 409", { jobs: 2 }, (t) =>
  eachDialect(t, "move into the root keeps the mover's view", async (t, dialect) => {
    const { call, user, workspace } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const folder = async (who: typeof ann, name: string, parentId = ws.root) =>
      String((await call("/v1/nodes", { user: who, body: { parent_id: parentId, name, kind: "folder" } })).body.id);
    const moveToRoot = (who: typeof ann, nodeId: string) => call(`/v1/nodes/${nodeId}`, { user: who, method: "PATCH", body: { parent_id: ws.root }, headers: { "If-Match": "1" } });

    const team = await folder(ann, "Team");
    t.equal((await call(`/v1/nodes/${team}/permissions`, { user: ann, body: { user_id: ben.id, role: "editor" } })).status, 200, "ben edits Team, and sees what is in it only through it");
    const plans = await folder(ann, "Plans", team);
    const q1 = await folder(ann, "Q1", plans);

    t.equal((await moveToRoot(ben, plans)).status, 200, "ben moves Plans into the root");
    const rootNames = ((await call(`/v1/nodes/${ws.root}/children`, { user: ben })).body.data as Json[]).map((n) => n.name).sort();
    t.same(rootNames, ["Plans", "Team"], "ben lists it at the root");
    t.match(await call(`/v1/nodes/${plans}`, { user: ben }), { status: 200, body: { name: "Plans", parent_id: ws.root } }, "ben reads it");
    t.same(((await call(`/v1/nodes/${plans}/children`, { user: ben })).body.data as Json[]).map((n) => n.id), [q1], "and what is in it");
    const grants = await call(`/v1/nodes/${plans}/permissions`, { user: ben });
    t.match(grants, { status: 200, body: { data: [{ user_id: ben.id, role: "owner" }] } }, "ben owns it, as the creator of a root node does");
    const feed = ((await call(`/v1/changes?workspace_id=${ws.id}`, { user: ben })).body.data as Json[]).filter((c) => c.node_id === plans).map((c) => c.type);
    t.ok(feed.includes("node.moved") && !feed.includes("node.left_view"), "ben's feed shows the move, and no tombstone of a node ben still sees");

    await folder(ben, "Notes");
    const notes = await folder(ann, "Notes", team);
    t.match(await moveToRoot(ben, notes), { status: 409, body: { code: "name_taken" } }, "a move into the root under a name ben holds there is 409, as a create is");
  }),
);

t.test("a member whose grant on a root node they named is revoked no longer holds its name: it passes to a member who still sees it, and their create of that name is 201", { jobs: 2 }, (t) =>
  eachDialect(t, "revoked root name holder", async (t, dialect) => {
    const { server, call, user, workspace } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const carl = await user();
    const ws = await workspace(ann, [ben, carl]);
    const create = (who: typeof ann, name: string) => call("/v1/nodes", { user: who, body: { parent_id: ws.root, name, kind: "folder" } });
    const grant = async (nodeId: string, who: typeof ann, role: string) =>
      t.equal((await call(`/v1/nodes/${nodeId}/permissions`, { user: ben, body: { user_id: who.id, role } })).status, 200, `ben makes ${role === "owner" ? "an owner" : `a ${role}`}`);
    const revokeBen = async (nodeId: string) => t.equal((await call(`/v1/nodes/${nodeId}/permissions/${ben.id}`, { user: ann, method: "DELETE" })).status, 204, "the owner revokes ben's grant");
    const rootNodes = async (who: typeof ann, name: string) =>
      ((await call(`/v1/nodes/${ws.root}/children`, { user: who })).body.data as Json[]).filter((n) => n.name === name).map((n) => n.id);

    const plans = String((await create(ben, "Plans")).body.id);
    await grant(plans, ann, "owner");
    await revokeBen(plans);
    t.same(await rootNodes(ben, "Plans"), [], "ben no longer sees Plans");
    const bens = await create(ben, "Plans");
    t.equal(bens.status, 201, "ben creates Plans at the root: the name he lost sight of is no longer his");
    t.same(await rootNodes(ann, "Plans"), [plans], "the owner still sees the original, and only it");
    t.match(await create(ann, "Plans"), { status: 409, body: { code: "name_taken" } }, "the owner who still sees it holds its name now");

    // The owner holds a root node of that name already: the name passes to the next who sees it.
    t.equal((await create(ann, "Notes")).status, 201, "the owner's own Notes");
    const notes = String((await create(ben, "Notes")).body.id);
    await grant(notes, ann, "owner");
    await grant(notes, carl, "viewer");
    await revokeBen(notes);
    t.equal((await create(ben, "Notes")).status, 201, "ben creates Notes at the root");
    t.same(await rootNodes(carl, "Notes"), [notes], "the viewer still sees the original");
    t.match(await create(carl, "Notes"), { status: 409, body: { code: "name_taken" } }, "the viewer holds its name, since the owner holds one of that name");
    t.equal((await rootNodes(ann, "Notes")).length, 2, "the owner sees both of their Notes");

    // Nobody who still sees it is free to hold the name: it is held by no member.
    t.equal((await create(ann, "Solo")).status, 201, "the owner's own Solo");
    const solo = String((await create(ben, "Solo")).body.id);
    await grant(solo, ann, "owner");
    await revokeBen(solo);
    t.equal((await create(ben, "Solo")).status, 201, "ben creates Solo at the root");
    t.ok((await rootNodes(ann, "Solo")).includes(solo), "the owner still sees the original beside their own");

    // A create of the name racing the revocation: both take the drive lock, one goes first.
    const race = String((await create(ben, "Race")).body.id);
    await grant(race, ann, "owner");
    const [revoked, anns] = await Promise.all([call(`/v1/nodes/${race}/permissions/${ben.id}`, { user: ann, method: "DELETE" }), create(ann, "Race")]);
    t.equal(revoked.status, 204, "the revocation racing the owner's create answers 204");
    t.ok(anns.status === 201 || (anns.status === 409 && anns.body.code === "name_taken"), "the owner's create answers 201, or 409 when the name passed to them first");
    t.equal((await rootNodes(ann, "Race")).length, anns.status === 201 ? 2 : 1, "the owner sees the original, and their own if it was made");
    t.equal((await create(ben, "Race")).status, 201, "ben creates Race at the root either way");

    // Grants on the drive root (none is made through the API): a holder sees their root nodes
    // through one, and its removal takes from them each they hold without a grant of its own.
    const database = server.core.database;
    const rootGrant = (who: typeof ann, role: string) =>
      database.db
        .insertInto("fs_acl_entries")
        .values({ workspace_id: ws.id, node_id: ws.root, user_id: who.id, role, granted_by: who.id, created_at: database.features.timeToDb(new Date()) })
        .execute();
    await rootGrant(ann, "owner");
    await rootGrant(ben, "viewer");
    const wide = String((await create(ben, "Wide")).body.id);
    await revokeBen(wide);
    t.match(await create(ben, "Wide"), { status: 409, body: { code: "name_taken" } }, "ben still sees Wide through the root, and still holds its name");
    await revokeBen(ws.root);
    t.equal((await create(ben, "Wide")).status, 201, "once his root grant is revoked, ben creates Wide at the root");
    t.ok((await rootNodes(ann, "Wide")).includes(wide), "the owner still sees the original");
    t.match(await create(ann, "Wide"), { status: 409, body: { code: "name_taken" } }, "and holds its name");
  }),
);

t.test("a rename or restore at the root racing the revocation of the actor's grant answers 200 or 404, and never gives the name to a member who no longer sees the node", { jobs: 2 }, (t) =>
  eachDialect(t, "rename and restore racing a revocation", async (t, dialect) => {
    const { call, user, workspace } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const create = (who: typeof ann, name: string) => call("/v1/nodes", { user: who, body: { parent_id: ws.root, name, kind: "folder" } });
    const revokeBen = (nodeId: string) => call(`/v1/nodes/${nodeId}/permissions/${ben.id}`, { user: ann, method: "DELETE" });
    // Ben's root folder, which the owner also owns.
    const shared = async (name: string) => {
      const id = String((await create(ben, name)).body.id);
      await call(`/v1/nodes/${id}/permissions`, { user: ben, body: { user_id: ann.id, role: "owner" } });
      return id;
    };
    // Three of each at once, on real connections: enough for some revocations to land between the
    // actor's access check and their transaction.
    const rounds = [0, 1, 2];
    const nodes = await Promise.all(
      rounds.map(async (round) => {
        const renamed = await shared(`Draft ${round}`);
        const trashed = await shared(`Old ${round}`);
        t.equal((await call(`/v1/nodes/${trashed}`, { user: ben, method: "DELETE" })).status, 204, "ben trashes one");
        return { renamed, trashed };
      }),
    );
    const raced = await Promise.all(
      rounds.flatMap((round) => [
        call(`/v1/nodes/${nodes[round]!.renamed}`, { user: ben, method: "PATCH", body: { name: `Final ${round}` }, headers: { "If-Match": "1" } }),
        revokeBen(nodes[round]!.renamed),
        call(`/v1/nodes/${nodes[round]!.trashed}/restore`, { user: ben, method: "POST" }),
        revokeBen(nodes[round]!.trashed),
      ]),
    );
    const answers = raced.filter((_, i) => i % 2 === 0).map((a) => a.status);
    t.ok(raced.filter((_, i) => i % 2 === 1).every((a) => a.status === 204), "the revocations answer 204");
    for (const round of rounds) {
      t.equal((await create(ben, `Final ${round}`)).status, 201, "ben, who no longer sees the renamed folder, does not hold its name");
      t.equal((await create(ben, `Old ${round}`)).status, 201, "nor the restored one's");
    }
    t.ok(answers.every((status) => status === 200 || status === 404), `each rename and restore answers 200 (before the revocation) or 404 (after it): ${answers.join(", ")}`);
  }),
);

t.test("a mover whose direct grant on a node is lower than their role through its old parent has it raised to that role when they move the node into the root", { jobs: 2 }, (t) =>
  eachDialect(t, "move into the root raises a lower grant", async (t, dialect) => {
    const { call, user, workspace } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const folder = async (name: string, parentId = ws.root) => String((await call("/v1/nodes", { user: ann, body: { parent_id: parentId, name, kind: "folder" } })).body.id);
    const team = await folder("Team");
    const plans = await folder("Plans", team);
    t.equal((await call(`/v1/nodes/${team}/permissions`, { user: ann, body: { user_id: ben.id, role: "editor" } })).status, 200, "ben edits Team");
    t.equal((await call(`/v1/nodes/${plans}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } })).status, 200, "ben views Plans by a grant of its own");

    const moved = await call(`/v1/nodes/${plans}`, { user: ben, method: "PATCH", body: { parent_id: ws.root }, headers: { "If-Match": "1" } });
    t.equal(moved.status, 200, "ben moves Plans into the root as its editor through Team");
    const renamed = await call(`/v1/nodes/${plans}`, { user: ben, method: "PATCH", body: { name: "Plans 2027" }, headers: { "If-Match": "2" } });
    t.equal(renamed.status, 200, "ben still edits it at the root: his grant was raised to editor");
    const back = await call(`/v1/nodes/${plans}`, { user: ben, method: "PATCH", body: { parent_id: team }, headers: { "If-Match": "3" } });
    t.equal(back.status, 200, "and moves it back into Team");
  }),
);

t.test("parallel creations of one root name: one per member who asks, exactly one for a member asking twice", { jobs: 2 }, (t) =>
  eachDialect(t, "hidden root names race", async (t, dialect) => {
    const { call, user, workspace } = await serverOf(dialect);
    const members = await Promise.all(Array.from({ length: 4 }, () => user()));
    const ws = await workspace(members[0]!, members.slice(1));
    const name = `Plan ${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(
      [...members, ...members].map((who) => call("/v1/nodes", { user: who, body: { parent_id: ws.root, name, kind: "folder" } })),
    );
    const created = answers.filter((a) => a.status === 201);
    t.equal(created.length, members.length, "one folder per member");
    t.ok(answers.filter((a) => a.status !== 201).every((a) => a.status === 409 && a.body.code === "name_taken"), "each member's second ask is 409 name_taken");
    for (const who of members) {
      const seen = ((await call(`/v1/nodes/${ws.root}/children`, { user: who })).body.data as Json[]).filter((n) => n.name === name);
      t.equal(seen.length, 1, "each member sees exactly their own");
    }
  }),
);


t.test("an archive extracted at the root neither writes into nor renames around a hidden root node of the same name", { jobs: 2 }, (t) =>
  eachDialect(t, "hidden root names extraction", async (t, dialect) => {
    const { call, user, workspace, upload, published } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const hidden = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Layoffs 2027", kind: "folder" } });
    t.equal((await upload(ann, ws.root, "notes.txt", bytesOf("hidden notes"), part)).status, 202, "the owner's hidden root file");

    const zip = makeZip([{ name: "Layoffs 2027/plan.txt", data: "my plan" }, { name: "notes.txt", data: "my notes" }]);
    const archive = await upload(ben, ws.root, "bundle.zip", zip, part);
    const archiveId = String(archive.body.node_id);
    await published(ben, archiveId);
    const requested = await call(`/v1/nodes/${archiveId}/extract`, { user: ben, body: {}, headers: { "Idempotency-Key": randomUUID() } });
    t.equal(requested.status, 202, "the member extracts at the root");
    let extraction: Json = requested.body;
    const deadline = Date.now() + 10_000;
    while (extraction.status !== "succeeded" && extraction.status !== "failed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      extraction = (await call(`/v1/extractions/${String(requested.body.id)}`, { user: ben })).body;
    }
    t.match(extraction, { status: "succeeded", folder_count: 1, file_count: 2 }, "a folder of its own was made");
    const bens = ((await call(`/v1/nodes/${ws.root}/children`, { user: ben })).body.data as Json[]).map((n) => n.name).sort();
    t.same(bens, ["Layoffs 2027", "bundle.zip", "notes.txt"], "the member's root holds the archive's names as they are, none renamed around a hidden one");
    const inside = await call(`/v1/nodes/${String(hidden.body.id)}/children`, { user: ann });
    t.same(inside.body.data, [], "nothing was written into the hidden folder");
  }),
);
