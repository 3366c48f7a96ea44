/**
 * Contract kit for ChangesRepository (ports/files/ChangesRepository.ts): changes are appended
 * with the drive's next sequence number and read back after a cursor in sequence order, with
 * their node as it is now, only on nodes the reader can see (a direct grant on the node or an
 * ancestor), only of the reader's workspace; a seq not above the workspace's last is refused
 * (strictly increasing); the log is append-only: changes above the retention mark are never
 * deleted; a page ends at `limit` and says where its scan stopped. A change addressed to one user
 * (`node.left_view`) goes to them alone, while its node is out of their view, and a reader who is
 * no longer a member reads every left-view change addressed to them (`addressedOnly`); a
 * `node.entered_view` change goes to its recipient alone while its node is in their view (the
 * root: always), and `lastAddressedTo` answers the last change of a node addressed to a user.
 * `readersOf` answers exactly the users `list` shows a change to: each user with a grant on its
 * node or an ancestor, once; an addressed change's recipient alone, under the same view rule; no
 * one for a change never recorded, pruned, or of another workspace.
 */
import { Effect, Exit } from "effect";
import type { AclEntry } from "../../../core/files/model/AclEntry.js";
import type { Change, ChangeType } from "../../../core/files/model/Change.js";
import type { Node } from "../../../core/files/model/Node.js";
import { ChangesRepository } from "../../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../../ports/files/DriveRepository.js";
import { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { inTransaction, nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";

/** The ports this kit needs: the repository, the drive that numbers its changes, and the nodes they are on. */
export type ChangesRepositoryKitPorts = ChangesRepository | NodesRepository | DriveSeedPorts;

const changes = <A>(f: (r: ChangesRepository) => Effect.Effect<A>) => Effect.flatMap(ChangesRepository, f);

/** Appends a change on `node` with the drive's next seq (addressed to `recipientId` if given), in one transaction; answers the change. */
const record = (node: Node, type: ChangeType, ms: number, recipientId?: string) =>
  inTransaction(
    Effect.gen(function* () {
      const seq = yield* Effect.flatMap(DriveRepository, (r) => r.nextChangeSeq(node.workspaceId));
      const change: Change = { workspaceId: node.workspaceId, seq, nodeId: node.id, type, versionId: null, actorId: "kit-user", createdAt: at(ms) };
      yield* changes((r) => r.append(change, recipientId));
      return change;
    }),
  );

const viewer = (node: Node, userId: string): AclEntry => ({ workspaceId: node.workspaceId, nodeId: node.id, userId, role: "viewer", grantedBy: "kit-user", createdAt: at(0) });

const list = (workspaceId: string, userId: string, afterSeq: number, limit = 50, addressedOnly = false) =>
  changes((r) => r.list({ workspaceId, userId, afterSeq, limit, addressedOnly }));

/** The cases of the ChangesRepository kit. */
export const changesRepositoryCases: ReadonlyArray<KitCase<ChangesRepositoryKitPorts>> = [
  {
    name: "changes: read back after a cursor in seq order, with the node as it is now, only of the reader's workspace",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      const b = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "B")));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(root, "user-1"))));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant({ ...viewer(other.root, "user-1") })));
      const c1 = await run(record(a, "node.created", 10));
      const c2 = await run(record(b, "node.created", 11));
      const renamed: Node = { ...a, name: "A2", version: 2, updatedAt: at(12) };
      await run(Effect.flatMap(NodesRepository, (r) => r.update(renamed, 1)));
      const c3 = await run(record(renamed, "node.renamed", 12));
      t.same([c1.seq, c2.seq, c3.seq], [1, 2, 3], "numbered by the drive");
      const all = await run(list(workspaceId, "user-1", 0));
      t.same(all.items.map((i) => i.change), [c1, c2, c3], "in seq order, as appended");
      t.same(all.items.map((i) => i.node.name), ["A2", "B", "A2"], "each with its node as it is now");
      t.same([all.scannedThroughSeq, all.exhausted], [3, true]);
      const after = await run(list(workspaceId, "user-1", 2));
      t.same(after.items.map((i) => i.change.seq), [3], "the cursor is exclusive");
      const elsewhere = await run(list(other.workspaceId, "user-1", 0));
      t.same([elsewhere.items, elsewhere.exhausted], [[], true], "another workspace's log is its own");
      t.same(await run(changes((r) => r.find(workspaceId, c2.seq))), c2, "find: one change by its seq");
      t.same([await run(changes((r) => r.find(workspaceId, 4))), await run(changes((r) => r.find(other.workspaceId, c2.seq)))], [null, null], "none past the last, none of another workspace");
    },
  },
  {
    name: "changes: a reader sees only changes on nodes granted to them directly or through an ancestor",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      const inside = await run(seedNode(nodeRecord(workspaceId, 2, shared.id, "inside.txt", "file")));
      const hidden = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "Hidden")));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(shared, "user-1"))));
      for (const [node, ms] of [[shared, 10], [hidden, 11], [inside, 12]] as const) await run(record(node, "node.created", ms));
      t.same((await run(list(workspaceId, "user-1", 0))).items.map((i) => i.change.nodeId), [shared.id, inside.id]);
      t.same((await run(list(workspaceId, "user-2", 0))).items, [], "no grant, no changes");
    },
  },
  {
    name: "changes: a change addressed to one user goes to them alone while its node is out of their view; addressedOnly reads every change addressed to the reader",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(shared, "user-2"))));
      const created = await run(record(shared, "node.created", 10));
      const sharedLeftOne = await run(record(shared, "node.left_view", 11, "user-1"));
      const rootLeftOne = await run(record(root, "node.left_view", 12, "user-1"));
      const sharedLeftTwo = await run(record(shared, "node.left_view", 13, "user-2"));
      const seqs = (scan: { readonly items: ReadonlyArray<{ readonly change: Change }> }) => scan.items.map((i) => i.change.seq);
      t.same(seqs(await run(list(workspaceId, "user-1", 0))), [sharedLeftOne.seq], "user-1 does not see Shared: its left-view change; the root is in every member's view");
      t.same(seqs(await run(list(workspaceId, "user-2", 0))), [created.seq], "user-2 sees Shared again: its change, not the left-view one");
      t.same(seqs(await run(list(workspaceId, "user-3", 0))), [], "nothing for anyone else");
      t.same(seqs(await run(list(workspaceId, "user-1", 0, 50, true))), [sharedLeftOne.seq, rootLeftOne.seq], "addressedOnly: every change addressed to the reader");
      t.same(seqs(await run(list(workspaceId, "user-2", 0, 50, true))), [sharedLeftTwo.seq], "whatever they see");
      t.same(seqs(await run(list(workspaceId, "user-1", sharedLeftOne.seq, 50, true))), [rootLeftOne.seq], "after the cursor");
      t.same(
        [await run(changes((r) => r.hasAddressedTo(workspaceId, "user-1"))), await run(changes((r) => r.hasAddressedTo(workspaceId, "user-3"))), await run(changes((r) => r.hasAddressedTo(other.workspaceId, "user-1")))],
        [true, false, false],
        "hasAddressedTo: of this workspace's log only",
      );
    },
  },
  {
    name: "changes: an entered-view change goes to its recipient alone while its node is in their view (the root: always); addressedOnly and hasAddressedTo count left-view changes only; lastAddressedTo answers a node's last change addressed to a user",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      const hidden = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "Hidden")));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(shared, "user-2"))));
      const rootLeftOne = await run(record(root, "node.left_view", 10, "user-1"));
      const sharedEnteredTwo = await run(record(shared, "node.entered_view", 11, "user-2"));
      await run(record(hidden, "node.entered_view", 12, "user-2"));
      const rootEnteredOne = await run(record(root, "node.entered_view", 13, "user-1"));
      await run(record(shared, "node.entered_view", 14, "user-1"));
      await run(record(root, "node.entered_view", 15, "user-4"));
      const seqs = (scan: { readonly items: ReadonlyArray<{ readonly change: Change }> }) => scan.items.map((i) => i.change.seq);
      t.same(seqs(await run(list(workspaceId, "user-2", 0))), [sharedEnteredTwo.seq], "user-2: Shared, which they see; not Hidden, which they do not");
      t.same(seqs(await run(list(workspaceId, "user-1", 0))), [rootEnteredOne.seq], "user-1: the root, in every member's view; not Shared, which they do not see");
      t.same(seqs(await run(list(workspaceId, "user-3", 0))), [], "nothing for anyone else");
      t.same(seqs(await run(list(workspaceId, "user-1", 0, 50, true))), [rootLeftOne.seq], "addressedOnly: the left-view changes addressed to the reader only");
      t.same(
        [await run(changes((r) => r.hasAddressedTo(workspaceId, "user-1"))), await run(changes((r) => r.hasAddressedTo(workspaceId, "user-4")))],
        [true, false],
        "hasAddressedTo: a left-view change, not an entered-view one",
      );
      t.same(
        [
          await run(changes((r) => r.lastAddressedTo(workspaceId, "user-1", root.id))),
          await run(changes((r) => r.lastAddressedTo(workspaceId, "user-2", root.id))),
          await run(changes((r) => r.lastAddressedTo(workspaceId, "user-2", shared.id))),
          await run(changes((r) => r.lastAddressedTo(other.workspaceId, "user-1", root.id))),
        ],
        ["node.entered_view", null, "node.entered_view", null],
        "lastAddressedTo: the type of the last change of the node addressed to the user, of this workspace's log only",
      );
    },
  },
  {
    name: "changes: readersOf answers each user with a grant on the change's node or an ancestor, once; no one for a change never recorded, pruned, or of another workspace",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      const inside = await run(seedNode(nodeRecord(workspaceId, 2, shared.id, "inside.txt", "file")));
      const hidden = await run(seedNode(nodeRecord(workspaceId, 3, root.id, "Hidden")));
      const grant = (entry: AclEntry) => run(Effect.flatMap(NodesRepository, (r) => r.putGrant(entry)));
      await grant(viewer(root, "user-root"));
      await grant(viewer(shared, "user-shared"));
      await grant(viewer(inside, "user-shared"));
      await grant(viewer(inside, "user-inside"));
      await grant(viewer(other.root, "user-elsewhere"));
      const readers = (workspace: string, seq: number) => run(changes((r) => r.readersOf(workspace, seq))).then((users) => [...users].sort());
      const onInside = await run(record(inside, "node.created", 10));
      const onShared = await run(record(shared, "node.renamed", 11));
      const onHidden = await run(record(hidden, "node.created", 12));
      const onRoot = await run(record(root, "node.renamed", 13));
      t.same(await readers(workspaceId, onInside.seq), ["user-inside", "user-root", "user-shared"], "grants on the node and every ancestor, each user once");
      t.same(await readers(workspaceId, onShared.seq), ["user-root", "user-shared"], "not a grant below the node");
      t.same(await readers(workspaceId, onHidden.seq), ["user-root"], "a node granted to no one is read through the root's grant only");
      t.same(await readers(workspaceId, onRoot.seq), ["user-root"], "the root: its own grants");
      t.same(await readers(workspaceId, 99), [], "no one for a change never recorded");
      t.same(await readers(other.workspaceId, onInside.seq), [], "no one for another workspace's seq");
      await run(inTransaction(Effect.flatMap(DriveRepository, (r) => r.pruneThrough(workspaceId, onInside.seq))));
      await run(changes((r) => r.deleteThrough(workspaceId, onInside.seq)));
      t.same(await readers(workspaceId, onInside.seq), [], "no one for a pruned change");
    },
  },
  {
    name: "changes: readersOf answers an addressed change's recipient alone, under the feed's view rule: exactly the users list shows each change to",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      const shared = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "Shared")));
      const hidden = await run(seedNode(nodeRecord(workspaceId, 2, root.id, "Hidden")));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(shared, "user-2"))));
      const readers = (seq: number) => run(changes((r) => r.readersOf(workspaceId, seq))).then((users) => [...users].sort());
      const expected: Array<[Change, ReadonlyArray<string>, string]> = [
        [await run(record(shared, "node.created", 10)), ["user-2"], "a plain change: the granted user"],
        [await run(record(shared, "node.left_view", 11, "user-1")), ["user-1"], "left view, out of the recipient's view: the recipient"],
        [await run(record(shared, "node.left_view", 12, "user-2")), [], "left view, back in the recipient's view: no one"],
        [await run(record(root, "node.left_view", 13, "user-1")), [], "left view of the root, in every member's view: no one"],
        [await run(record(shared, "node.entered_view", 14, "user-2")), ["user-2"], "entered view, in the recipient's view: the recipient alone"],
        [await run(record(hidden, "node.entered_view", 15, "user-2")), [], "entered view, out of the recipient's view: no one"],
        [await run(record(root, "node.entered_view", 16, "user-4")), ["user-4"], "entered view of the root: the recipient"],
      ];
      for (const [change, users, why] of expected) t.same(await readers(change.seq), users, why);
      // The feed's own answer for every user involved: readersOf says exactly who list shows each change to.
      for (const user of ["user-1", "user-2", "user-3", "user-4"]) {
        const shown = new Set((await run(list(workspaceId, user, 0))).items.map((i) => i.change.seq));
        for (const [change] of expected) {
          t.equal((await readers(change.seq)).includes(user), shown.has(change.seq), `${user} reads seq ${change.seq} by readersOf exactly when list shows it`);
        }
      }
    },
  },
  {
    name: "changes: seq is strictly increasing per workspace: a seq not above the last is refused, nothing stored",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(root, "user-1"))));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      await run(record(a, "node.created", 10));
      await run(record(a, "node.renamed", 11));
      for (const seq of [2, 1]) {
        const change: Change = { workspaceId, seq, nodeId: a.id, type: "node.moved", versionId: null, actorId: "kit-user", createdAt: at(20) };
        t.ok(Exit.isFailure(await run(Effect.exit(changes((r) => r.append(change))))), `seq ${seq} after seq 2 is refused`);
      }
      t.same((await run(list(workspaceId, "user-1", 0))).items.map((i) => [i.change.seq, i.change.type]), [[1, "node.created"], [2, "node.renamed"]]);
    },
  },
  {
    name: "changes: the log is append-only: changes above the retention mark are never deleted; at or below it they may be",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(root, "user-1"))));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      for (const ms of [10, 11, 12]) await run(record(a, "node.renamed", ms));
      t.ok(Exit.isFailure(await run(Effect.exit(changes((r) => r.deleteThrough(workspaceId, 2))))), "no mark yet: refused");
      t.equal((await run(list(workspaceId, "user-1", 0))).items.length, 3, "nothing deleted");
      t.equal(await run(inTransaction(Effect.flatMap(DriveRepository, (r) => r.pruneThrough(workspaceId, 2)))), 2);
      t.equal(await run(changes((r) => r.deleteThrough(workspaceId, 2))), 2);
      t.same((await run(list(workspaceId, "user-1", 0))).items.map((i) => i.change.seq), [3]);
    },
  },
  {
    name: "changes: a page ends at limit and says where its scan stopped; lastSeqBefore answers the last seq recorded before an instant",
    run: async (t, run) => {
      const { workspaceId, root } = await run(seedDrive(1));
      await run(Effect.flatMap(NodesRepository, (r) => r.putGrant(viewer(root, "user-1"))));
      const a = await run(seedNode(nodeRecord(workspaceId, 1, root.id, "A")));
      for (const ms of [10, 20, 30, 40, 50]) await run(record(a, "node.renamed", ms));
      const first = await run(list(workspaceId, "user-1", 0, 2));
      t.same([first.items.map((i) => i.change.seq), first.scannedThroughSeq, first.exhausted], [[1, 2], 2, false]);
      const rest = await run(list(workspaceId, "user-1", first.scannedThroughSeq, 10));
      t.same([rest.items.map((i) => i.change.seq), rest.scannedThroughSeq, rest.exhausted], [[3, 4, 5], 5, true]);
      const none = await run(list(workspaceId, "user-1", 5, 10));
      t.same([none.items, none.scannedThroughSeq, none.exhausted], [[], 5, true], "after the last: nothing, the cursor stays");
      t.equal(await run(changes((r) => r.lastSeqBefore(workspaceId, at(35)))), 3);
      t.equal(await run(changes((r) => r.lastSeqBefore(workspaceId, at(10)))), 0, "none before the first");
    },
  },
];

/** Runs the ChangesRepository kit. */
export const changesRepositorySuite = (options: SuiteOptions<ChangesRepositoryKitPorts>): Promise<unknown> => runCases(options, changesRepositoryCases);
