/**
 * Names at the drive root (security audit S5, docs/decisions.md). Every member may create at the
 * root but sees there only the nodes granted to them, so a name taken by a node they cannot see
 * must not collide: a root node's name is unique among the root nodes of its holder, the member
 * who last created, named, moved or restored it there. Below the root an editor of the folder
 * sees every child, and names are unique among all active siblings (holder null).
 */
import type { Node } from "./model/Node.js";

/** Who holds a name that `userId` puts under `parent`: the user at the root, nobody below it. */
export const nameHolderUnder = (parent: Pick<Node, "parentId">, userId: string): string | null => (parent.parentId === null ? userId : null);
