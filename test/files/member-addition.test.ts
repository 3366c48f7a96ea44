/**
 * Spec (Resources): Change is the metadata log "that drives sync"; (Endpoints) GET /v1/changes is
 * for a "Member; results filtered by authorization". A member removed from the workspace read the
 * drive's root leaving their view, and their client dropped its copy. Re-invited (announced by the
 * host's membership source), they read one `node.entered_view` change of the root addressed to
 * them, so the client lists the drive again, and the normal feed after it. Nobody else's feed
 * shows it; a member who never left (a role change, a first invitation) gets none; an addition
 * undone before it is processed writes none; a redelivered announcement writes nothing more.
 */
import t from "tap";
import { Effect } from "effect";
import { createFolder } from "../../core/files/CreateFolder.js";
import { memberAdditionConsumer, type MemberAdditionOf } from "../../core/files/MemberAddition.js";
import { memberRemovalConsumer, type MemberRemovalOf } from "../../core/files/MemberRemoval.js";
import { grantAccess } from "../../core/files/Permissions.js";
import { makeEvent, type EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { deliverTo, relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { changeFeed as feed, filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

/** A membership source's events, as a host's would carry them. */
const removalType = "TestWorkspaceMemberRemoved";
const additionType = "TestWorkspaceMemberAdded";
const userOf = (event: EventEnvelope) => String((event.data as { user_id: string }).user_id);
const removalOf: MemberRemovalOf = (event) => (event.type === removalType ? { workspaceId: event.tenant_id, userId: userOf(event), actorId: event.actor_id ?? "system" } : null);
const additionOf: MemberAdditionOf = (event) => (event.type === additionType ? { workspaceId: event.tenant_id, userId: userOf(event), actorId: event.actor_id ?? "system" } : null);
const additions = memberAdditionConsumer(additionOf);
const consumers = [memberRemovalConsumer(removalOf), additions];

/** Appends a membership event of `userId` in ws1 to the outbox (as the membership source's transaction would); answers it. */
const announce = (env: FilesEnv, type: string, userId: string): Promise<EventEnvelope> =>
  env.runtime.runPromise(
    Effect.flatMap(Transactions, (tx) =>
      tx.run(
        Effect.gen(function* () {
          const event = yield* makeEvent({ type, tenant_id: "ws1", aggregate_id: "ws1", aggregate_version: 0, actor_id: "ann", data: { user_id: userId } });
          yield* (yield* Outbox).append([event]);
          return event;
        }),
      ),
    ),
  );

/** Relays the outbox to the consumers until nothing is pending. */
const relay = async (env: FilesEnv): Promise<void> => {
  for (let i = 0; i < 20; i++) {
    const pass = await env.runtime.runPromise(relayOnce(consumers, { workerId: "test-relay" }));
    if (pass.claimed === 0) return;
  }
};

/** The entered-view changes of the drive's root in the log, as [node, recipient]. */
const enteredViews = async (env: FilesEnv) =>
  (
    await env.db.db
      .selectFrom("fs_changes as c")
      .innerJoin("fs_nodes as n", (j) => j.onRef("n.workspace_id", "=", "c.workspace_id").onRef("n.id", "=", "c.node_id"))
      .select(["c.node_id", "c.recipient_id"])
      .where("c.type", "=", "node.entered_view")
      .where("n.parent_id", "is", null)
      .orderBy("c.seq")
      .execute()
  ).map((r) => [r.node_id, r.recipient_id]);

t.test("a re-invited member reads the drive's root entering their view, then the later changes", (t) =>
  forEachFilesDialect(t, "member-addition", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const benStart = await feed(env, "ben", null);
    const annStart = await feed(env, "ann", null);
    const cidStart = await feed(env, "cid", null);

    env.directory.set("ws1", "ben", null);
    await announce(env, removalType, "ben");
    await relay(env);
    const removed = await feed(env, "ben", benStart.cursor);
    t.match(removed.items, [{ nodeId: root, type: "node.left_view" }], "removed: the root left his view (his client dropped the drive)");

    env.directory.set("ws1", "ben", "member");
    const event = await announce(env, additionType, "ben");
    await relay(env);
    const back = await feed(env, "ben", removed.cursor);
    t.match(back.items, [{ nodeId: root, type: "node.entered_view", node: { id: root, parentId: null }, tombstone: null }], "re-invited: the root entered his view (list the drive again)");
    t.equal(back.items.length, 1, "one change: the root stands for the whole drive");

    await env.runtime.runPromise(deliverTo(additions, event));
    t.same(await enteredViews(env), [[root, "ben"]], "a redelivered announcement writes nothing more");

    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "Later" }));
    t.match((await feed(env, "ben", back.cursor)).items, [{ type: "node.created", node: { name: "Later" } }], "after it, the normal feed");
    t.notOk((await feed(env, "ann", annStart.cursor)).items.some((i) => i.type === "node.entered_view"), "ann's feed does not show his entered view");
    t.notOk((await feed(env, "cid", cidStart.cursor)).items.some((i) => i.type === "node.entered_view"), "nor cid's");

    // Announced again (a role change): he never left since, nothing more.
    await announce(env, additionType, "ben");
    await relay(env);
    t.same(await enteredViews(env), [[root, "ben"]], "a role change of a member writes none");
  }),
);

t.test("a member who never left gets no entered-view change: a first invitation or a role change", (t) =>
  forEachFilesDialect(t, "member-addition-first", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    await announce(env, additionType, "ben");
    env.directory.set("ws1", "dan", "member");
    await announce(env, additionType, "dan");
    await relay(env);
    t.same(await enteredViews(env), [], "no entered-view change for ben nor dan");
  }),
);

t.test("a re-invitation undone before it is processed writes no entered-view change", (t) =>
  forEachFilesDialect(t, "member-addition-undone", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    env.directory.set("ws1", "ben", null);
    await announce(env, removalType, "ben");
    await relay(env);
    await announce(env, additionType, "ben");
    await relay(env);
    t.same(await enteredViews(env), [], "he is not a member when it runs: nothing");
    t.match((await feed(env, "ben", null)).items.map((i) => i.type), ["node.left_view"], "his feed is still the drop only");
  }),
);
