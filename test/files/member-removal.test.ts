/**
 * Spec (Resources): Change is the metadata log "that drives sync"; (Endpoints) GET /v1/changes is
 * for a "Member; results filtered by authorization". A member removed from the workspace held a
 * sync copy of what they could see: the removal, announced by the host's membership source, leaves
 * one `node.left_view` change of the drive's root addressed to them, which they still read (and
 * only it), so their client drops its copy. Nobody else's feed shows it; a re-invited member's
 * feed no longer does (they see the root again); a removal undone before it is processed writes
 * nothing; a redelivered announcement writes nothing more.
 */
import t from "tap";
import { Effect } from "effect";
import { createFolder } from "../../core/files/CreateFolder.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { memberRemovalConsumer, type MemberRemovalOf } from "../../core/files/MemberRemoval.js";
import { grantAccess } from "../../core/files/Permissions.js";
import { makeEvent, type EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { deliverTo, relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { changeFeed as feed, filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

/** A membership source's removal event, as a host's would carry it. */
const removalType = "TestWorkspaceMemberRemoved";
const removalOf: MemberRemovalOf = (event) =>
  event.type === removalType ? { workspaceId: event.tenant_id, userId: String((event.data as { user_id: string }).user_id), actorId: event.actor_id ?? "system" } : null;
const consumer = memberRemovalConsumer(removalOf);

/** Appends the removal of `userId` from ws1 to the outbox (as the membership source's transaction would); answers the event. */
const announceRemoval = (env: FilesEnv, userId: string): Promise<EventEnvelope> =>
  env.runtime.runPromise(
    Effect.flatMap(Transactions, (tx) =>
      tx.run(
        Effect.gen(function* () {
          const event = yield* makeEvent({ type: removalType, tenant_id: "ws1", aggregate_id: "ws1", aggregate_version: 0, actor_id: "ann", data: { user_id: userId } });
          yield* (yield* Outbox).append([event]);
          return event;
        }),
      ),
    ),
  );

/** Relays the outbox to the consumer until nothing is pending. */
const relay = async (env: FilesEnv): Promise<void> => {
  for (let i = 0; i < 20; i++) {
    const pass = await env.runtime.runPromise(relayOnce([consumer], { workerId: "test-relay" }));
    if (pass.claimed === 0) return;
  }
};


const notFound = { ok: false, error: { _tag: "NotFound" } };

t.test("a member removed from the workspace reads one left-view change of the drive's root, and nothing else", (t) =>
  forEachFilesDialect(t, "member-removal", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const benStart = await feed(env, "ben", null);
    t.ok(benStart.items.some((i) => i.nodeId === shared.id), "ben syncs Shared while a member");
    const annStart = await feed(env, "ann", null);
    const cidStart = await feed(env, "cid", null);

    env.directory.set("ws1", "ben", null);
    t.match(await env.attempt(listChanges({ userId: "ben", workspaceId: "ws1", cursor: benStart.cursor, limit: 50 })), notFound, "until the removal is processed nothing is addressed to him: 404");
    const event = await announceRemoval(env, "ben");
    await relay(env);

    const benAfter = await feed(env, "ben", benStart.cursor);
    t.match(benAfter.items, [{ nodeId: root, type: "node.left_view", node: null, tombstone: { id: root, kind: "folder", parentId: null, trashedAt: null } }], "the drive's root left his view");
    t.equal(benAfter.items.length, 1, "one change");
    t.equal((await feed(env, "ben", null)).items.length, 1, "from the start of the log too: only what is addressed to him");

    await env.runtime.runPromise(deliverTo(consumer, event));
    t.equal((await feed(env, "ben", benStart.cursor)).items.length, 1, "a redelivered announcement writes nothing more");

    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "Later" }));
    t.same((await feed(env, "ben", benAfter.cursor)).items, [], "later changes of what he could see never reach him");
    t.notOk((await feed(env, "ann", annStart.cursor)).items.some((i) => i.type === "node.left_view"), "ann's feed does not show it");
    t.notOk((await feed(env, "cid", cidStart.cursor)).items.some((i) => i.type === "node.left_view"), "nor cid's");
    t.match(await env.attempt(listChanges({ userId: "eve", workspaceId: "ws1", cursor: null, limit: 50 })), notFound, "a user who never was a member: 404");

    env.directory.set("ws1", "ben", "member");
    const again = await feed(env, "ben", null);
    t.notOk(again.items.some((i) => i.type === "node.left_view"), "re-invited, he sees the root again: the left-view change is not shown");
    t.ok(again.items.some((i) => i.nodeId === shared.id), "and his grant shows Shared as before");
  }),
);

t.test("a removal undone before it is processed writes no left-view change", (t) =>
  forEachFilesDialect(t, "member-removal-undone", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    env.directory.set("ws1", "ben", null);
    await announceRemoval(env, "ben");
    env.directory.set("ws1", "ben", "member");
    await relay(env);
    env.directory.set("ws1", "ben", null);
    t.match(await env.attempt(listChanges({ userId: "ben", workspaceId: "ws1", cursor: null, limit: 50 })), notFound, "nothing was addressed to him");
  }),
);
