/**
 * The node machine: an active node is renamed or moved (staying active) or trashed with its
 * subtree; a trashed node is restored (with its subtree) or purged after retention unless under
 * legal hold (purge comes with the retention job).
 */
import { transition, type TransitionTable } from "./StateMachine.js";

/** Active or in the trash. */
export type NodeState = "active" | "trashed";

/** What moves a node. */
export type NodeTrigger = "rename" | "move" | "trash" | "restore";

export const nodeTransitions: TransitionTable<NodeState, NodeTrigger> = {
  active: { rename: "active", move: "active", trash: "trashed" },
  trashed: { restore: "active" },
};

/** The next state of a node, or IllegalTransition. */
export const nextNodeState = transition("node", nodeTransitions);

/** The state a node record is in. */
export const nodeState = (node: { readonly trashedAt: Date | null }): NodeState => (node.trashedAt === null ? "active" : "trashed");
