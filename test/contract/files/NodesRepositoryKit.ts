/**
 * Contract kit for NodesRepository (ports/files/NodesRepository.ts): a node is found only under
 * its workspace (another workspace's node is absent); a name is unique among active siblings
 * (answered `name_taken`, never thrown) and free again once the sibling is trashed; children
 * come in (name, id) keyset order after a cursor, active only, and the `granted` filter keeps
 * direct grants only; trashing a subtree and restoring it bring back exactly that subtree; an
 * update is conditional on the stored version (a stale version writes nothing); ancestors come
 * nearest first ending at the root; a subtree's height counts the levels below a node (trashed
 * descendants included, up to a cap, in its workspace only); grants are put, changed and removed
 * per (node, user), and a node's grants come in keyset pages by user id. At the drive root names
 * are unique per holder (a hidden root node's name does not collide with another member's), and
 * only a child of the root holds its name.
 */
import { Effect, Exit } from "effect";
import type { AclEntry, NodeRole } from "../../../core/files/model/AclEntry.js";
import type { Node } from "../../../core/files/model/Node.js";
import { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { inTransaction, nodeKitId, nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";

/** The ports this kit needs: the repository, and the drive (with Transactions) its nodes belong to. */
export type NodesRepositoryKitPorts = NodesRepository | DriveSeedPorts;

const nodes = <A>(f: (r: NodesRepository) => Effect.Effect<A>) => Effect.flatMap(NodesRepository, f);
const ids = (list: ReadonlyArray<Node>) => list.map((n) => n.id);
const grant = (node: Node, userId: string, role: NodeRole): AclEntry => ({
  workspaceId: node.workspaceId,
  nodeId: node.id,
  userId,
  role,
  grantedBy: "kit-user",
  createdAt: at(100),
});

/** The cases of the NodesRepository kit. */
export const nodesRepositoryCases: ReadonlyArray<KitCase<NodesRepositoryKitPorts>> = [
  {
    name: "nodes: a node is found under its workspace only; another workspace's node is absent",
    run: async (t, run) => {
      const a = await run(seedDrive(1));
      const b = await run(seedDrive(2));
      const folder = await run(seedNode(nodeRecord(a.workspaceId, 1, a.root.id, "Plans")));
      t.same(await run(nodes((r) => r.find(a.workspaceId, folder.id))), folder, "stored as given");
      t.equal(await run(nodes((r) => r.find(b.workspaceId, folder.id))), null, "absent under another workspace");
      t.equal(await run(nodes((r) => r.workspaceOf(folder.id))), a.workspaceId, "workspaceOf names its tenant");
      t.equal(await run(nodes((r) => r.workspaceOf(nodeKitId(99)))), null, "an unknown id has none");
      t.equal(await run(nodes((r) => r.findActiveChild(b.workspaceId, a.root.id, "Plans", null))), null, "nor is it another workspace's child");
      t.same(await run(nodes((r) => r.children({ workspaceId: b.workspaceId, parentId: a.root.id, filter: { kind: "all" }, after: null, limit: 10 }))), []);
    },
  },
  {
    name: "nodes: a name is unique among active siblings (name_taken, nothing stored) and free again once the sibling is trashed",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const first = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Report.pdf", "file")));
      t.equal(await run(nodes((r) => r.insert(nodeRecord(workspaceId, 2, root.id, "Report.pdf", "file")))), "name_taken");
      t.equal(await run(nodes((r) => r.find(workspaceId, nodeKitId(2)))), null, "the refused node was not stored");
      const other = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "Other")));
      t.equal(await run(nodes((r) => r.insert(nodeRecord(workspaceId, 4, other.id, "Report.pdf", "file")))), "written", "the same name under another parent");
      t.same(await run(nodes((r) => r.findActiveChild(workspaceId, root.id, "Report.pdf", null))), first);
      await run(nodes((r) => r.trashSubtree(workspaceId, first.id, at(10))));
      t.equal(await run(nodes((r) => r.findActiveChild(workspaceId, root.id, "Report.pdf", null))), null, "a trashed node is no active child");
      t.equal(await run(nodes((r) => r.insert(nodeRecord(workspaceId, 5, root.id, "Report.pdf", "file")))), "written", "the name is free once the sibling is trashed");
    },
  },
  {
    name: "nodes: at the root a name is unique per holder; only a child of the root has a holder",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const held = (n: number, parentId: Node["id"], name: string, holder: string): Node => ({ ...nodeRecord(workspaceId, n, parentId, name), rootHolder: holder });
      const anns = await run(seedNode(held(1, root.id, "Layoffs", "ann")));
      t.equal(await run(nodes((r) => r.insert(held(2, root.id, "Layoffs", "ben")))), "written", "another holder's root node of the same name");
      t.equal(await run(nodes((r) => r.insert(held(3, root.id, "Layoffs", "ann")))), "name_taken", "the same holder's name is taken");
      t.same(await run(nodes((r) => r.findActiveChild(workspaceId, root.id, "Layoffs", "ann"))), anns, "found under its holder");
      t.equal(await run(nodes((r) => r.findActiveChild(workspaceId, root.id, "Layoffs", "carl"))), null, "absent for a member who holds none");
      t.ok(Exit.isFailure(await run(Effect.exit(nodes((r) => r.insert(held(4, anns.id, "Inner", "ann")))))), "a node below the root with a holder is refused");
      const inner = await run(seedNode(nodeRecord(workspaceId, 5, anns.id, "Inner")));
      t.ok(Exit.isFailure(await run(Effect.exit(nodes((r) => r.update({ ...inner, rootHolder: "ann", version: 2 }, 1))))), "nor can an update give it one");
      await run(nodes((r) => r.trashSubtree(workspaceId, anns.id, at(10))));
      t.equal(await run(nodes((r) => r.insert(held(6, root.id, "Layoffs", "ann")))), "written", "free again for its holder once trashed");
      const trashed = (await run(nodes((r) => r.find(workspaceId, anns.id))))!;
      await run(nodes((r) => r.putGrant(grant(anns, "carl", "editor"))));
      t.equal(await run(nodes((r) => r.restoreSubtree(workspaceId, anns.id, at(11), trashed.version, "carl"))), 2, "a restore with a new holder, who sees it");
      const restored = await run(nodes((r) => r.find(workspaceId, anns.id)));
      t.same([restored?.rootHolder, restored?.trashedAt], ["carl", null], "the restored root node has its new holder");
      const below = await run(nodes((r) => r.find(workspaceId, inner.id)));
      t.same([below?.rootHolder, below?.trashedAt], [null, null], "the nodes below it keep none");
    },
  },
  {
    name: "nodes: children are the active ones in (name, id) order, in pages after a (name, id) cursor",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const folder = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Folder")));
      for (const [n, name] of [[10, "c"], [11, "a"], [12, "d"], [13, "b"], [14, "e"]] as const) await run(seedNode(nodeRecord(workspaceId, n, folder.id, name)));
      await run(seedNode(nodeRecord(workspaceId, 20, root.id, "elsewhere")));
      await run(nodes((r) => r.trashSubtree(workspaceId, nodeKitId(12), at(30))));
      const page = (after: readonly [string, string] | null) =>
        run(nodes((r) => r.children({ workspaceId, parentId: folder.id, filter: { kind: "all" }, after, limit: 2 })));
      const first = await page(null);
      t.same(first.map((n) => n.name), ["a", "b"]);
      const last = first[first.length - 1]!;
      const second = await page([last.name, last.id]);
      t.same(second.map((n) => n.name), ["c", "e"], "the trashed child is skipped, the cursor is exclusive");
      const end = second[second.length - 1]!;
      t.same(await page([end.name, end.id]), [], "nothing after the last child");
    },
  },
  {
    name: "nodes: the granted filter keeps only children the user holds a direct grant on",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      const privateOne = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "Private")));
      await run(seedNode(nodeRecord(workspaceId, 3, shared.id, "Inside")));
      await run(nodes((r) => r.putGrant(grant(shared, "user-1", "viewer"))));
      await run(nodes((r) => r.putGrant(grant(privateOne, "user-2", "owner"))));
      const granted = (userId: string, parentId: string) =>
        run(nodes((r) => r.children({ workspaceId, parentId, filter: { kind: "granted", userId }, after: null, limit: 10 })));
      t.same(ids(await granted("user-1", root.id)), [shared.id]);
      t.same(ids(await granted("user-2", root.id)), [privateOne.id]);
      t.same(ids(await granted("user-1", shared.id)), [], "a grant on the parent is not a direct grant on its children");
    },
  },
  {
    name: "nodes: trashing a subtree trashes every active node under it; restoring brings back exactly that subtree",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const top = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Top")));
      const mid = await run(seedNode(nodeRecord(workspaceId, 2, top.id, "Mid")));
      const leaf = await run(seedNode(nodeRecord(workspaceId, 3, mid.id, "leaf.txt", "file")));
      const earlier = await run(seedNode(nodeRecord(workspaceId, 4, top.id, "trashed-before.txt", "file")));
      const sibling = await run(seedNode(nodeRecord(workspaceId, 5, root.id, "Sibling")));
      t.same(await run(nodes((r) => r.trashSubtree(workspaceId, earlier.id, at(10)))), [earlier.id]);
      const trashed = await run(nodes((r) => r.trashSubtree(workspaceId, top.id, at(20))));
      t.same([...trashed].sort(), [top.id, mid.id, leaf.id].sort(), "the active subtree, not the node trashed before");
      for (const id of [top.id, mid.id, leaf.id]) {
        const found = await run(nodes((r) => r.find(workspaceId, id)));
        t.same([found?.trashedAt, found?.trashRootId], [at(20), top.id], "trashed with the top node");
      }
      t.equal((await run(nodes((r) => r.find(workspaceId, sibling.id))))?.trashedAt, null, "a sibling is untouched");
      t.equal(await run(nodes((r) => r.restoreSubtree(workspaceId, top.id, at(30)))), 3);
      for (const id of [top.id, mid.id, leaf.id]) {
        const found = await run(nodes((r) => r.find(workspaceId, id)));
        t.same([found?.trashedAt, found?.trashRootId], [null, null], "restored");
      }
      t.equal((await run(nodes((r) => r.find(workspaceId, earlier.id))))?.trashRootId, earlier.id, "the node trashed on its own stays in the trash");
    },
  },
  {
    name: "nodes: an update is conditional on the stored version: a stale version writes nothing; a taken name is name_taken",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "B")));
      const moved: Node = { ...b, parentId: a.id, version: 2, updatedAt: at(10) };
      t.equal(await run(nodes((r) => r.update(moved, 1))), "written");
      t.same(await run(nodes((r) => r.find(workspaceId, b.id))), moved);
      t.equal(await run(nodes((r) => r.update({ ...b, name: "B2", version: 2, updatedAt: at(11) }, 1))), "stale", "version 1 is no longer stored");
      t.same(await run(nodes((r) => r.find(workspaceId, b.id))), moved, "the stale update wrote nothing");
      await run(seedNode(nodeRecord(workspaceId, 3, a.id, "Taken")));
      t.equal(await run(nodes((r) => r.update({ ...moved, name: "Taken", version: 3, updatedAt: at(12) }, 2))), "name_taken");
      t.same(await run(nodes((r) => r.find(workspaceId, b.id))), moved, "nothing stored for the taken name");
    },
  },
  {
    name: "nodes: racing writers on separate connections: of two updates from one version exactly one is written, of two siblings with one name exactly one is stored",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "B")));
      const c = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "C")));
      await run(warmUp(2, nodes((r) => r.find(workspaceId, c.id))));
      const moves = await run(
        Effect.all(
          [
            inTransaction(nodes((r) => r.update({ ...c, parentId: a.id, version: 2, updatedAt: at(10) }, 1))),
            inTransaction(nodes((r) => r.update({ ...c, parentId: b.id, version: 2, updatedAt: at(11) }, 1))),
          ],
          { concurrency: "unbounded" },
        ),
      );
      t.same([...moves].sort(), ["stale", "written"], "one move wins, the other is stale");
      const stored = await run(nodes((r) => r.find(workspaceId, c.id)));
      t.equal(stored?.version, 2);
      t.equal(stored?.parentId, moves[0] === "written" ? a.id : b.id, "the winner's write is the one stored");
      const inserts = await run(
        Effect.all(
          [
            inTransaction(nodes((r) => r.insert(nodeRecord(workspaceId, 4, root.id, "Same")))),
            inTransaction(nodes((r) => r.insert(nodeRecord(workspaceId, 5, root.id, "Same")))),
          ],
          { concurrency: "unbounded" },
        ),
      );
      t.same([...inserts].sort(), ["name_taken", "written"], "one sibling wins the name, the other is name_taken");
      const named = await run(nodes((r) => r.children({ workspaceId, parentId: root.id, filter: { kind: "all" }, after: null, limit: 10 })));
      t.equal(named.filter((n) => n.name === "Same").length, 1, "one active sibling holds the name");
    },
  },
  {
    name: "nodes: ancestors come nearest first and end at the root",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, a.id, "B")));
      const c = await run(seedNode(nodeRecord(workspaceId, 3, b.id, "c.txt", "file")));
      t.same(ids(await run(nodes((r) => r.ancestors(workspaceId, c.id, 32)))), [b.id, a.id, root.id]);
      t.same(ids(await run(nodes((r) => r.ancestors(workspaceId, root.id, 32)))), [], "the root has none");
      t.same(ids(await run(nodes((r) => r.ancestors(workspaceId, c.id, 2)))), [b.id, a.id], "bounded by maxDepth");
    },
  },
  {
    name: "nodes: findWithAncestorsAndGrants reads the node, its ancestors nearest first and only the caller's grants on them, in the workspace",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, a.id, "B")));
      const c = await run(seedNode(nodeRecord(workspaceId, 3, b.id, "c.txt", "file")));
      const sibling = await run(seedNode(nodeRecord(workspaceId, 4, root.id, "Sibling")));
      const grants = [grant(a, "user-1", "editor"), grant(c, "user-1", "viewer"), grant(b, "user-2", "owner"), grant(sibling, "user-1", "owner")];
      for (const entry of grants) await run(nodes((r) => r.putGrant(entry)));
      const read = (id: string, userId: string, maxDepth = 32, ws = workspaceId) => run(nodes((r) => r.findWithAncestorsAndGrants(ws, id, userId, maxDepth)));
      const found = await read(c.id, "user-1");
      t.same(found?.node, c, "the node as stored");
      t.same(ids(found?.ancestors ?? []), [b.id, a.id, root.id], "its ancestors, nearest first, to the root");
      t.same(found?.ancestors, await run(nodes((r) => r.ancestors(workspaceId, c.id, 32))), "as ancestors answers them");
      t.same((found?.grants ?? []).map((g) => `${g.nodeId}:${g.role}`).sort(), [`${a.id}:editor`, `${c.id}:viewer`].sort(), "the caller's grants on the chain only");
      t.same(found?.grants.find((g) => g.nodeId === a.id), grant(a, "user-1", "editor"), "a grant as stored");
      t.same((await read(c.id, "user-2"))?.grants.map((g) => g.nodeId), [b.id], "another user's grants are its own");
      t.same((await read(c.id, "user-3"))?.grants, [], "no grant");
      t.same(ids((await read(c.id, "user-1", 2))?.ancestors ?? []), [b.id, a.id], "bounded by maxDepth");
      t.same((await read(root.id, "user-1"))?.ancestors, [], "the root has no ancestors");
      t.equal(await read(c.id, "user-1", 32, other.workspaceId), null, "another workspace's node is absent");
      t.equal(await read(nodeKitId(99), "user-1"), null, "an unknown node is absent");
    },
  },
  {
    name: "nodes: a grant is put once per (node, user), changed in place and removed once",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "B")));
      await run(nodes((r) => r.putGrant(grant(a, "user-1", "viewer"))));
      await run(nodes((r) => r.putGrant(grant(a, "user-1", "editor"))));
      await run(nodes((r) => r.putGrant(grant(a, "user-2", "owner"))));
      await run(nodes((r) => r.putGrant(grant(b, "user-1", "owner"))));
      t.same((await run(nodes((r) => r.grantsOfNode(workspaceId, a.id)))).map((g) => [g.userId, g.role]), [["user-1", "editor"], ["user-2", "owner"]]);
      const onBoth = await run(nodes((r) => r.grantsOn(workspaceId, "user-1", [a.id, b.id])));
      t.same(onBoth.map((g) => `${g.nodeId}:${g.role}`).sort(), [`${a.id}:editor`, `${b.id}:owner`].sort());
      t.same(await run(nodes((r) => r.grantsOn(workspaceId, "user-1", []))), []);
      t.equal(await run(nodes((r) => r.removeGrant(workspaceId, a.id, "user-1"))), true);
      t.equal(await run(nodes((r) => r.removeGrant(workspaceId, a.id, "user-1"))), false, "removed once");
      t.same((await run(nodes((r) => r.grantsOfNode(workspaceId, a.id)))).map((g) => g.userId), ["user-2"]);
    },
  },
  {
    name: "nodes: subtreeHeight counts the levels below a node (0 for a leaf), trashed descendants included, at most the cap, in the node's workspace only",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, a.id, "B")));
      const c = await run(seedNode(nodeRecord(workspaceId, 3, b.id, "C")));
      const d = await run(seedNode(nodeRecord(workspaceId, 4, c.id, "d.txt", "file")));
      const shallow = await run(seedNode(nodeRecord(workspaceId, 5, root.id, "Shallow")));
      await run(seedNode(nodeRecord(workspaceId, 6, shallow.id, "e.txt", "file")));
      // The other workspace's tree is deeper; it never counts for this one.
      let parent = other.root;
      for (const n of [10, 11, 12, 13, 14, 15]) parent = await run(seedNode(nodeRecord(other.workspaceId, n, parent.id, `Deep ${n}`)));
      const height = (id: string, cap = 64, ws: string = workspaceId) => run(nodes((r) => r.subtreeHeight(ws, id, cap)));
      t.equal(await height(d.id), 0, "a file has no levels below it");
      t.equal(await height(c.id), 1);
      t.equal(await height(a.id), 3, "the deepest branch counts");
      t.equal(await height(shallow.id), 1, "a sibling's branch is its own");
      t.equal(await height(root.id), 4, "the root reaches the deepest node");
      t.equal(await height(root.id, 2), 2, "counted up to the cap");
      t.equal(await height(a.id, 3), 3, "a cap equal to the height answers the height");
      await run(nodes((r) => r.trashSubtree(workspaceId, c.id, at(20))));
      t.equal(await height(a.id), 3, "trashed descendants still count (a restore brings them back)");
      t.equal(await height(a.id, 64, other.workspaceId), 0, "not under another workspace");
      t.equal(await height(other.root.id), 0, "another workspace's node is not under this one");
      t.equal(await height(other.root.id, 64, other.workspaceId), 6, "the other workspace's tree is its own");
      t.equal(await height(nodeKitId(99)), 0, "an unknown node has none");
    },
  },
  {
    name: "nodes: a node's direct grants come in keyset pages by user id, after an exclusive user id cursor, at most the limit, only the node's own under its workspace",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const child = await run(seedNode(nodeRecord(workspaceId, 2, a.id, "Child")));
      const elsewhere = await run(seedNode(nodeRecord(other.workspaceId, 3, other.root.id, "Elsewhere")));
      // Put out of user order: the page order is the user id's, not the insertion's.
      const roles: ReadonlyArray<readonly [string, NodeRole]> = [["user-3", "viewer"], ["user-1", "owner"], ["user-5", "editor"], ["user-2", "viewer"], ["user-4", "editor"]];
      for (const [userId, role] of roles) await run(nodes((r) => r.putGrant(grant(a, userId, role))));
      await run(nodes((r) => r.putGrant(grant(child, "user-0", "owner"))));
      await run(nodes((r) => r.putGrant(grant(root, "user-6", "owner"))));
      await run(nodes((r) => r.putGrant(grant(elsewhere, "user-7", "owner"))));
      const page = (afterUserId: string | null, limit: number, ws: string = workspaceId, nodeId: string = a.id) => run(nodes((r) => r.grantsPage(ws, nodeId, afterUserId, limit)));
      const users = (list: ReadonlyArray<AclEntry>) => list.map((g) => g.userId);
      const first = await page(null, 2);
      t.same(users(first), ["user-1", "user-2"], "by user id, at most the limit");
      t.same(first[0], grant(a, "user-1", "owner"), "a grant as stored");
      const second = await page(first[first.length - 1]!.userId, 2);
      t.same(users(second), ["user-3", "user-4"], "continued after the cursor, which is exclusive");
      const third = await page(second[second.length - 1]!.userId, 2);
      t.same(users(third), ["user-5"], "the last page is short");
      t.same(await page("user-5", 2), [], "nothing after the last user");
      t.same(await page(null, 10), await run(nodes((r) => r.grantsOfNode(workspaceId, a.id))), "one page holding them all answers what grantsOfNode does");
      t.same(users(await page(null, 1)), ["user-1"], "a limit of 1");
      t.same(users(await page("user-25", 10)), ["user-3", "user-4", "user-5"], "a cursor that is no grantee still positions the page");
      t.same(users(await page(null, 10, workspaceId, child.id)), ["user-0"], "a child's grants are its own, and the parent's are not its");
      t.same(await page(null, 10, other.workspaceId, a.id), [], "not under another workspace");
      t.same(users(await page(null, 10, other.workspaceId, elsewhere.id)), ["user-7"], "the other workspace's node has its own");
      await run(nodes((r) => r.removeGrant(workspaceId, a.id, "user-3")));
      t.same(users(await page("user-2", 2)), ["user-4", "user-5"], "a removed grant is no longer paged");
    },
  },
  {
    name: "nodes: rootNodesHeldBy lists the active root nodes whose name a member holds",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const a = await run(seedNode({ ...nodeRecord(workspaceId, 1, root.id, "A"), rootHolder: "user-1" }));
      await run(seedNode({ ...nodeRecord(workspaceId, 2, root.id, "B"), rootHolder: "user-2" }));
      const inner = await run(seedNode(nodeRecord(workspaceId, 3, a.id, "Inner")));
      t.same((await run(nodes((r) => r.rootNodesHeldBy(workspaceId, root.id, "user-1")))).map((n) => n.id), [a.id], "only the member's own root nodes");
      t.same(await run(nodes((r) => r.rootNodesHeldBy(workspaceId, inner.id, "user-1"))), [], "none below the root");
    },
  },
];

/** Runs the NodesRepository kit. */
export const nodesRepositorySuite = (options: SuiteOptions<NodesRepositoryKitPorts>): Promise<unknown> => runCases(options, nodesRepositoryCases);
