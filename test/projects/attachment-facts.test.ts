/**
 * An attachment's completed upload is a fact of its task (spec: "A task has comments and
 * attachments"; rule 3: the change, its TaskEvent and its outbox row commit in one
 * transaction): completing records `attachment.added` (AttachmentAdded, aggregate = the
 * attachment) once, in the activity feed and on `project:<id>` for the task's project only; a
 * failure while recording it leaves the attachment pending with no scan queued — SQLite and
 * Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { completeAttachment } from "../../core/projects/Attachments.js";
import { projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { Outbox } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { startFilesServer, uploadAttachment } from "../blob/filesHost.js";
import { inviteAndAccept, projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

type Host = Awaited<ReturnType<typeof startFilesServer>>;

const encode = (s: string) => new TextEncoder().encode(s);

/** Relays the outbox to the realtime consumer and answers a channel's events. */
const channelEvents = async (host: Host, channel: string): Promise<EventEnvelope[]> =>
  host.run(
    Effect.gen(function* () {
      const consumer = realtimeConsumer({ channelsFor: projectChannelsFor });
      for (let i = 0; i < 20; i++) {
        const pass = yield* relayOnce([consumer], { workerId: "test-relay" });
        if (pass.claimed === 0) break;
      }
      return (yield* (yield* ChannelLog).readSince(channel, 0, 1000)).messages.map((m) => m.event);
    }),
  );

const outboxOf = async (host: Host, type: string): Promise<EventEnvelope[]> =>
  (await host.db.db.selectFrom("outbox").select(["event"]).where("type", "=", type).orderBy("id").execute()).map(
    (r) => featuresFor(host.db).jsonFromDb(r.event) as EventEnvelope,
  );

forEachDialectConfig(t, `a completed upload is an AttachmentAdded fact in activity and on its project's channel, once`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, {
    dev: { workspace: "member", project: "contributor" },
  });
  const dev = clients.dev!;
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Spec" })).body;
  const other = (await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Elsewhere" })).body;
  const bytes = encode("the specification, version 1\n");
  const { requested, completed } = await uploadAttachment(host, dev, task.id, bytes, "spec.txt");
  t.equal(completed.status, 202);
  const id = requested.body.attachment.id;
  t.equal((await outboxOf(host, "AttachmentAdded")).length, 1, "requesting the upload alone is no fact; completing is");
  t.equal((await dev.call("POST", `/v1/attachments/${id}/complete`)).status, 202, "completing again is harmless");

  const feed = await owner.call("GET", `/v1/activity?workspace_id=${workspaceId}&limit=200`);
  const added = (feed.body.data as Array<{ kind: string; task_id: string; project_id: string; actor_id: string; data: any }>).filter(
    (e) => e.kind === "attachment.added",
  );
  t.equal(added.length, 1, "one fact, however often the upload is completed");
  t.match(added[0], {
    task_id: task.id,
    project_id: projectId,
    actor_id: dev.userId,
    data: { attachment_id: id, filename: "spec.txt", size: bytes.length, status: "quarantined", content_type: "text/plain", project_id: projectId },
  });
  t.equal(added[0]!.data.task.id, task.id, "the fact carries the task view like every task fact");
  t.equal((await owner.call("GET", `/v1/tasks/${task.id}`)).body.version, 1, "an attachment does not change the task's version");

  const outbox = await outboxOf(host, "AttachmentAdded");
  t.equal(outbox.length, 1);
  t.match(outbox[0], { aggregate_id: id, aggregate_version: 1, tenant_id: workspaceId, actor_id: dev.userId }, "the aggregate is the attachment");
  const channel = (await channelEvents(host, `project:${projectId}`)).filter((e) => e.type === "AttachmentAdded");
  t.same(channel.map((e) => e.aggregate_id), [id], "AttachmentAdded is delivered on project:<id>");
  t.same((await channelEvents(host, `project:${other.id}`)).filter((e) => e.type === "AttachmentAdded"), [], "and on no other project's channel");

  // A member who cannot see the project sees nothing of it in the feed.
  const outsider = await host.client();
  t.equal((await inviteAndAccept(owner, workspaceId, outsider, "member")).member.role, "member");
  const theirs = await outsider.call("GET", `/v1/activity?workspace_id=${workspaceId}`);
  t.same(theirs.body.data.filter((e: { kind: string }) => e.kind === "attachment.added"), [], "hidden from members of other projects");
});

forEachDialectConfig(t, `a failure while recording AttachmentAdded rolls back the completion and its scan job`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Spec" })).body;
  const bytes = encode("draft\n");
  const { createHash } = await import("node:crypto");
  const requested = await owner.call("POST", `/v1/tasks/${task.id}/attachments`, {
    filename: "draft.txt",
    content_type: "text/plain",
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  });
  t.equal((await host.transfer(requested.body.upload, bytes)).status, 201);
  const id = requested.body.attachment.id;
  const count = async (table: string) => (await host.db.db.selectFrom(table).select("id").execute()).length;
  const before = { events: await count("pm_task_events"), outbox: await count("outbox") };

  const principal = { kind: "user" as const, userId: owner.userId };
  // The outbox writes its row and then fails: the status change and the scan job before it must roll back too.
  const broken = Effect.flatMap(Outbox, (real) =>
    completeAttachment(principal, id).pipe(
      Effect.provideService(Outbox, { append: (events) => Effect.zipRight(real.append(events), Effect.dieMessage("outbox outage")) }),
    ),
  );
  await t.rejects(host.run(broken), /outbox outage/);
  t.equal((await owner.call("GET", `/v1/attachments/${id}`)).body.status, "pending", "the attachment is still pending");
  const jobs = await host.db.db.selectFrom("jobs").select("id").where("kind", "=", "projects.attachment_scan").execute();
  t.equal(jobs.length, 0, "no scan was queued");
  t.same({ events: await count("pm_task_events"), outbox: await count("outbox") }, before, "no TaskEvent and no outbox row survived");

  const retried = await owner.call("POST", `/v1/attachments/${id}/complete`);
  t.equal(retried.status, 202, "the upload can still be completed");
  t.equal(retried.body.status, "quarantined");
  t.equal((await outboxOf(host, "AttachmentAdded")).length, 1);
});
