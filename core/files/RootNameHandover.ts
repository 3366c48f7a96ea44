/**
 * A root node's name passes on when its holder loses sight of it (RootNames.ts). At the root a
 * member sees a node only through a grant on it or on the drive root, so removing the holder's
 * grant on either can leave them holding a name they no longer see: their create of it would
 * answer 409 and tell them the node is still there. Before such a removal, in its transaction
 * and under the drive lock, the name passes to a current member who still sees the node: its
 * owners first, then editors, then viewers, then grantees of the root, by user id within each,
 * skipping anyone who already holds an active root node of that name. With none left the node
 * holds no member's name: its own id is its holder. The node's version advances by one, as
 * every change of a node does. Files migration 20 refuses a grant removal that leaves a holder
 * blind.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { advanced } from "../kernel/Versioning.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import type { AclEntry } from "./model/AclEntry.js";
import type { Node } from "./model/Node.js";

const rank = { owner: 0, editor: 1, viewer: 2 } as const;

/** The users who see `node` at the root without `userId`, strongest grant first. */
const othersWhoSee = (node: Node, rootGrants: ReadonlyArray<AclEntry>, userId: string) =>
  Effect.gen(function* () {
    const own = [...(yield* (yield* NodesRepository).grantsOfNode(node.workspaceId, node.id))].sort(
      (a, b) => rank[a.role] - rank[b.role] || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
    );
    const users = [...new Set([...own, ...rootGrants].map((g) => g.userId))].filter((u) => u !== userId);
    return users.length === 0 ? [] : yield* (yield* WorkspaceDirectory).membersAmong(node.workspaceId, users);
  });

/**
 * Before `userId`'s direct grant on `nodeId` is removed (`ancestors`: the node's, nearest first):
 * hands each root name they hold and would no longer see to another member who sees its node.
 */
export const handOverRootNames = (input: {
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly userId: string;
  readonly ancestors: ReadonlyArray<Node>;
}) =>
  Effect.gen(function* () {
    const nodes = yield* NodesRepository;
    const rootId = input.ancestors.length === 0 ? input.nodeId : input.ancestors[input.ancestors.length - 1]!.id;
    const rootGrants = yield* nodes.grantsOfNode(input.workspaceId, rootId);
    let losing: ReadonlyArray<Node> = [];
    if (input.ancestors.length === 0) {
      // The root grant: every held root node without a grant of its own is lost.
      const held = yield* nodes.rootNodesHeldBy(input.workspaceId, rootId, input.userId);
      const granted = new Set((yield* nodes.grantsOn(input.workspaceId, input.userId, held.map((n) => n.id))).map((g) => g.nodeId as string));
      losing = held.filter((n) => !granted.has(n.id));
    } else if (input.ancestors.length === 1 && !rootGrants.some((g) => g.userId === input.userId)) {
      const node = yield* nodes.find(input.workspaceId, input.nodeId);
      if (node !== null && node.rootHolder === input.userId && node.trashedAt === null) losing = [node];
    }
    for (const node of losing) {
      let holder: string = node.id;
      for (const candidate of yield* othersWhoSee(node, rootGrants, input.userId)) {
        if ((yield* nodes.findActiveChild(input.workspaceId, rootId, node.name, candidate)) === null) {
          holder = candidate;
          break;
        }
      }
      const written = yield* nodes.update(advanced({ ...node, rootHolder: holder, updatedAt: yield* now }), node.version);
      if (written !== "written") return yield* Effect.dieMessage(`root node ${node.id} changed under the drive lock (${written})`);
    }
  });
