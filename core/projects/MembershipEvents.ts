/**
 * Membership facts: an audit record (actor and reason) and an outbox envelope, written in the
 * membership change's transaction; and the after-commit notice that makes live subscriptions
 * re-check access. A realtime outage never fails the membership change itself (spec rule 9).
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { EventInput } from "../kernel/EventDefinition.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { now } from "../kernel/Clock.js";
import { MembershipGranted, MembershipRevoked, WorkspaceMembershipGranted, WorkspaceMembershipRevoked } from "./Events.js";
import { MembershipAuditId, ProjectId, WorkspaceId } from "./model/Ids.js";

/** The channel of a project's live updates. */
export const projectChannel = (projectId: string): string => `project:${projectId}`;

/** What changed about one membership. */
export interface MembershipFact {
  readonly workspaceId: WorkspaceId;
  readonly projectId: ProjectId | null;
  readonly userId: string;
  readonly actorId: string;
  readonly action: "workspace_member.added" | "workspace_member.removed" | "project_member.added" | "project_member.removed";
  readonly role: string | null;
  readonly reason: string;
}

type MembershipData = typeof MembershipGranted.data.Type;

/** The envelope of a membership change, by its action. */
const membershipEvent = (action: MembershipFact["action"], input: EventInput<MembershipData>): Effect.Effect<EventEnvelope, never, Ids> => {
  switch (action) {
    case "workspace_member.added":
      return WorkspaceMembershipGranted.make(input);
    case "workspace_member.removed":
      return WorkspaceMembershipRevoked.make(input);
    case "project_member.added":
      return MembershipGranted.make(input);
    case "project_member.removed":
      return MembershipRevoked.make(input);
  }
};

/**
 * The aggregate of a membership's events: the membership itself, `project:<project id>:member:<user id>`
 * or `workspace:<workspace id>:member:<user id>` (the ids are UUIDs, so everything after the
 * `:member:` is the user id).
 */
export const membershipAggregateId = (fact: Pick<MembershipFact, "workspaceId" | "projectId" | "userId">): string =>
  fact.projectId === null ? `workspace:${fact.workspaceId}:member:${fact.userId}` : `project:${fact.projectId}:member:${fact.userId}`;

/** The envelope of `fact` at `version` of its membership. */
const envelopeOf = (fact: MembershipFact, version: number): Effect.Effect<EventEnvelope, never, Ids> =>
  membershipEvent(fact.action, {
    tenant_id: fact.workspaceId,
    aggregate_id: membershipAggregateId(fact),
    aggregate_version: version,
    actor_id: fact.actorId,
    data: {
      workspace_id: fact.workspaceId,
      project_id: fact.projectId,
      user_id: fact.userId,
      role: fact.role,
      reason: fact.reason,
    },
  });

/**
 * Audits the change and appends its event; call inside the change's transaction, holding the
 * membership's lock (the user's workspace membership row, or the workspace row for a workspace
 * membership that does not exist yet; a new workspace's or project's first membership needs none).
 * The event's aggregate is the membership and its version the membership's audit records counted
 * after this one is appended: 1 for its first change, one more for every change after, so a
 * consumer orders a revocation against a later re-grant of the same user.
 */
export const recordMembershipFact = (fact: MembershipFact): Effect.Effect<void, never, ProjectsRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    const at = yield* now;
    const id = MembershipAuditId.make(yield* (yield* Ids).next);
    const repo = yield* ProjectsRepository;
    yield* repo.appendAudit({ id, ...fact, createdAt: at });
    const version = yield* repo.countMembershipChanges(fact);
    yield* (yield* Outbox).append([yield* envelopeOf(fact, version)]);
  });

/** Facts per multi-row audit insert and per outbox append of {@link recordProjectMembershipFacts}. */
const factsPerChunk = 1_000;

/**
 * {@link recordMembershipFact} for the same change of one user's memberships of many projects of
 * a workspace (a demotion's lowered roles, a removal's memberships), in project id order, in
 * statements that do not grow with their number: one grouped read of the memberships' versions,
 * then per 1,000 projects one multi-row audit insert and one outbox append. Each event and audit
 * record is what recordMembershipFact writes. Call under the user's workspace membership lock.
 */
export const recordProjectMembershipFacts = (
  fact: Omit<MembershipFact, "projectId">,
  projectIds: ReadonlyArray<ProjectId>,
): Effect.Effect<void, never, ProjectsRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    if (projectIds.length === 0) return;
    const at = yield* now;
    const ids = yield* Ids;
    const repo = yield* ProjectsRepository;
    const outbox = yield* Outbox;
    // The versions before these changes: each change appends one audit record, so its version is one more.
    const changes = yield* repo.countProjectMembershipChangesInWorkspace(fact.workspaceId, fact.userId);
    const ordered = [...projectIds].sort();
    for (let from = 0; from < ordered.length; from += factsPerChunk) {
      const facts = ordered.slice(from, from + factsPerChunk).map((projectId): MembershipFact => ({ ...fact, projectId }));
      const audits = yield* Effect.forEach(facts, (f) => Effect.map(ids.next, (id) => ({ id: MembershipAuditId.make(id), ...f, createdAt: at })));
      yield* repo.appendAudits(audits);
      yield* outbox.append(yield* Effect.forEach(facts, (f) => envelopeOf(f, (changes.get(f.projectId!) ?? 0) + 1)));
    }
  });

/**
 * After commit: tells every process that `userId` lost access (to one project's channel, or to
 * everything when `projectId` is omitted) so its live subscriptions are re-authorized and
 * dropped. Failures are swallowed: HTTP reads re-check access at the source anyway.
 */
export const announceAccessChanged = (userId: string, projectId?: string): Effect.Effect<void, never, RealtimeBus> =>
  Effect.flatMap(RealtimeBus, (bus) =>
    bus.publish(projectId === undefined ? { type: "access_changed", userId } : { type: "access_changed", userId, channel: projectChannel(projectId) }),
  ).pipe(
    Effect.timeout("2 seconds"),
    Effect.catchAllCause(() => Effect.void),
  );
