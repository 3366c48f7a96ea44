/**
 * `PUT /v1/nodes/:id/legal-hold {hold, reason}`: a workspace admin places or releases a legal
 * hold on a node (spec: trash purge follows retention and legal hold), whatever their content
 * access (admins govern policy and audit, not content). Audited with the reason in the same
 * transaction; the node's version advances (its representation changed). A member who is not an
 * admin gets 403 where they can see the node, else 404. An expected version (If-Match, optional)
 * is checked first: a stale one answers 412 with the current node, even when the hold is already
 * as asked; the update is conditional on the version read.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { advanced, staleWrite, versionMismatch } from "../kernel/Versioning.js";
import type { VersionMismatch } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { authorize, resolveAccess, type NodeAccess } from "./Access.js";
import type { Node } from "./model/Node.js";
import { lockNamespaceAndResolve } from "./NamespaceLock.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Succeeds for a workspace admin; else Forbidden where the caller sees the node, NotFound where not. */
const requireAdmin = (access: NodeAccess): Effect.Effect<NodeAccess, NotFound | Forbidden> =>
  access.standing === "admin"
    ? Effect.succeed(access)
    : Effect.zipRight(authorize(access, "view"), Effect.fail(new Forbidden({ detail: "only a workspace admin places or releases a legal hold" })));

/** Places (`hold`) or releases a legal hold; holding a held node again changes nothing. */
export const setLegalHold = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly hold: boolean;
  readonly reason: string;
  /** The node version the caller saw (If-Match); a stale one answers 412. Without it the change is unconditional. */
  readonly expectedVersion?: number | undefined;
}): Effect.Effect<Node, NotFound | Forbidden | ValidationFailed | VersionMismatch, FilesServices> =>
  Effect.gen(function* () {
    yield* requireAdmin(yield* resolveAccess(input.workspaceId, input.userId, input.nodeId));
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 1000) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "1 to 1000 characters" }] }));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the lock: a demotion committed since the check above is seen.
        const { node } = yield* requireAdmin(yield* lockNamespaceAndResolve(input.workspaceId, input.userId, input.nodeId));
        if (input.expectedVersion !== undefined && input.expectedVersion !== node.version) return yield* Effect.fail(versionMismatch(node, input.expectedVersion));
        if (node.legalHold === input.hold) return node;
        const at = yield* now;
        const updated = advanced({ ...node, legalHold: input.hold, updatedAt: at });
        const nodes = yield* NodesRepository;
        const written = yield* nodes.update(updated, node.version);
        if (written !== "written") {
          return yield* staleWrite("node", Effect.map(nodes.find(input.workspaceId, node.id), (n) => n ?? undefined), input.expectedVersion);
        }
        yield* (yield* FilesAudit).append({
          id: yield* (yield* Ids).next,
          workspaceId: node.workspaceId,
          actorId: input.userId,
          action: input.hold ? "node.legal_hold_placed" : "node.legal_hold_released",
          targetId: node.id,
          reason,
          data: { kind: node.kind },
          createdAt: at,
        });
        return updated;
      }),
    );
  }).pipe(withSpan("files.setLegalHold"));
