/**
 * Custom fields (issue 3 should-have: "per-project definitions: text, number, date,
 * single-select; validated values on tasks"): only a project admin defines them, names are
 * unique per project, values are validated by type, a field of another project cannot be set on
 * a task, and the database refuses a value whose field and task are in different projects.
 * Spec rules 2 and 3 for values: setting or clearing one is a change of the task (its version
 * advances by the conditional update, with If-Match honoured as PATCH does, no lost update
 * under concurrent writers), recorded as a TaskChanged fact in the activity feed and on the
 * project channel, task write, value, TaskEvent and outbox row in one transaction — SQLite and
 * Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { setTaskFieldValue } from "../../core/projects/CustomFields.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import { Outbox } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { startFilesServer } from "../blob/filesHost.js";
import { projectFixture, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

type Host = Awaited<ReturnType<typeof startFilesServer>>;

/** Relays the outbox to the realtime consumer and answers the project channel's events. */
const projectChannelEvents = async (host: Host, projectId: string): Promise<EventEnvelope[]> =>
  host.run(
    Effect.gen(function* () {
      const consumer = realtimeConsumer({ channelsFor: projectChannelsFor });
      for (let i = 0; i < 20; i++) {
        const pass = yield* relayOnce([consumer], { workerId: "test-relay" });
        if (pass.claimed === 0) break;
      }
      const { messages } = yield* (yield* ChannelLog).readSince(`project:${projectId}`, 0, 1000);
      return messages.map((m) => m.event);
    }),
  );

/** The outbox's envelopes of `type`, oldest first. */
const outboxEvents = async (host: Host, type: string): Promise<EventEnvelope[]> => {
  const rows = await host.db.db.selectFrom("outbox").select(["event"]).where("type", "=", type).orderBy("id").execute();
  return rows.map((r) => featuresFor(host.db).jsonFromDb(r.event) as EventEnvelope);
};

const fieldFacts = async (who: Client, workspaceId: string) => {
  const feed = await who.call("GET", `/v1/activity?workspace_id=${workspaceId}&limit=200`);
  return (feed.body.data as Array<{ kind: string; task_id: string; data: any }>).filter((e) => e.kind === "task.field_set");
};

forEachDialectConfig(t, `custom fields are defined by admins and their values validated by type`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, {
    dev: { workspace: "member", project: "contributor" },
    reader: { workspace: "guest", project: "viewer" },
  });
  const dev = clients.dev!;
  const define = (body: unknown, who = owner) => who.call("POST", `/v1/projects/${projectId}/fields`, body);
  const text = await define({ name: "Notes", type: "text" });
  t.equal(text.status, 201);
  const points = (await define({ name: "Points", type: "number" })).body;
  const due = (await define({ name: "Due", type: "date" })).body;
  const size = (await define({ name: "Size", type: "single_select", options: ["S", "M", "L"] })).body;
  t.equal((await define({ name: "Notes", type: "number" })).body.code, "custom_field_exists");
  t.equal((await define({ name: "X", type: "text" }, dev)).status, 403, "a contributor cannot define fields");
  t.equal((await define({ name: "Bad", type: "single_select" })).status, 422, "a select needs options");
  t.equal((await define({ name: "Bad", type: "text", options: ["a"] })).status, 422, "only selects have options");
  const listed = await clients.reader!.call("GET", `/v1/projects/${projectId}/fields`);
  t.same(listed.body.data.map((f: { name: string }) => f.name), ["Due", "Notes", "Points", "Size"]);

  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Estimate" });
  const set = (fieldId: string, value: unknown, who = dev) => who.call("PUT", `/v1/tasks/${task.body.id}/fields/${fieldId}`, { value });
  t.equal((await set(points.id, 5)).status, 200);
  t.equal((await set(points.id, "5")).status, 422, "a number field refuses text");
  t.equal((await set(due.id, "2026-02-28")).status, 200);
  t.equal((await set(due.id, "2026-02-30")).status, 422, "not a calendar date");
  t.equal((await set(size.id, "XL")).status, 422, "not one of the options");
  t.equal((await set(size.id, "M")).status, 200);
  t.equal((await set(text.body.id, "x".repeat(2001))).status, 422);
  t.equal((await set(text.body.id, "ok")).status, 200);
  t.equal((await set(text.body.id, null)).status, 204, "null clears");
  t.equal((await set(points.id, 8, clients.reader!)).status, 403, "a viewer cannot set values");
  const values = await clients.reader!.call("GET", `/v1/tasks/${task.body.id}/fields`);
  t.same(
    Object.fromEntries(values.body.data.map((v: { field_id: string; value: unknown }) => [v.field_id, v.value])),
    { [points.id]: 5, [due.id]: "2026-02-28", [size.id]: "M" },
  );

  const other = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Other" });
  const foreign = (await owner.call("POST", `/v1/projects/${other.body.id}/fields`, { name: "Foreign", type: "number" })).body;
  const cross = await set(foreign.id, 1);
  t.equal(cross.status, 422, "a field of another project is not a field of this task");
  const row = { workspace_id: workspaceId, project_id: projectId, task_id: task.body.id, field_id: foreign.id, value: "1", updated_by: owner.userId, updated_at: new Date().toISOString() };
  await t.rejects(host.db.db.insertInto("pm_task_field_values").values(row).execute(), "the database refuses a cross-project value");
  const outsider = await host.client();
  t.equal((await outsider.call("GET", `/v1/projects/${projectId}/fields`)).status, 404);
  t.equal((await outsider.call("PUT", `/v1/tasks/${task.body.id}/fields/${points.id}`, { value: 1 })).status, 404);
});

forEachDialectConfig(t, `a field value change advances the task version and is a TaskChanged fact in activity and on the project channel`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, { dev: { workspace: "member", project: "contributor" } });
  const dev = clients.dev!;
  const points = (await owner.call("POST", `/v1/projects/${projectId}/fields`, { name: "Points", type: "number" })).body;
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Estimate" })).body;
  t.equal(task.version, 1);
  const put = (value: unknown, headers: Record<string, string> = {}) => dev.call("PUT", `/v1/tasks/${task.id}/fields/${points.id}`, { value }, headers);

  const set = await put(5);
  t.equal(set.status, 200);
  t.equal(set.headers.get("etag"), '"2"', "the answer's ETag is the task's new version");
  t.equal((await owner.call("GET", `/v1/tasks/${task.id}`)).body.version, 2, "setting a value advanced the task's version");
  const same = await put(5);
  t.equal(same.status, 200);
  t.equal(same.headers.get("etag"), '"2"', "writing the value it already has changes nothing");

  const stale = await put(8, { "If-Match": '"1"' });
  t.equal(stale.status, 412, "a stale If-Match is refused as PATCH refuses it");
  t.equal(stale.body.code, "version_mismatch");
  t.match(stale.body.current, { id: task.id, version: 2, title: "Estimate", project_id: projectId }, "412 carries the current task view");
  const fresh = await put(8, { "If-Match": '"2"' });
  t.equal(fresh.status, 200);
  t.equal(fresh.headers.get("etag"), '"3"');
  t.equal((await put(9, { "If-Match": "*" })).status, 400, "If-Match is parsed as everywhere");
  const cleared = await put(null);
  t.equal(cleared.status, 204);
  t.equal(cleared.headers.get("etag"), '"4"', "clearing is a change too");
  t.equal((await put(null)).headers.get("etag"), '"4"', "clearing nothing changes nothing");
  t.same((await dev.call("GET", `/v1/tasks/${task.id}/fields`)).body.data, []);

  const facts = await fieldFacts(owner, workspaceId);
  t.same(
    facts.map((e) => [e.task_id, e.data.field_id, e.data.value, e.data.previous_value, e.data.task.version]),
    [
      [task.id, points.id, null, 8, 4],
      [task.id, points.id, 8, 5, 3],
      [task.id, points.id, 5, null, 2],
    ],
    "the activity feed shows each change, newest first, with the field and its new value",
  );
  const outbox = (await outboxEvents(host, "TaskChanged")).filter((e) => (e.data as any).kind === "task.field_set");
  t.same(outbox.map((e) => e.aggregate_version), [2, 3, 4], "TaskChanged carries each bumped version");
  t.ok(outbox.every((e) => e.aggregate_id === task.id && e.actor_id === dev.userId));
  const channel = (await projectChannelEvents(host, projectId)).filter((e) => e.type === "TaskChanged");
  t.same(channel.map((e) => [e.aggregate_version, (e.data as any).field_id]), [[2, points.id], [3, points.id], [4, points.id]], "delivered on project:<id>");

  t.equal((await owner.call("DELETE", `/v1/tasks/${task.id}`)).status, 200);
  const trashed = await put(1);
  t.equal(trashed.status, 409);
  t.equal(trashed.body.code, "task_deleted");
  t.equal((await put(1, { "If-Match": '"4"' })).status, 412, "412 is checked before 409, as for PATCH");
});

forEachDialectConfig(t, `a failure while recording the fact rolls back the value and the version bump`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const points = (await owner.call("POST", `/v1/projects/${projectId}/fields`, { name: "Points", type: "number" })).body;
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Estimate" })).body;
  t.equal((await owner.call("PUT", `/v1/tasks/${task.id}/fields/${points.id}`, { value: 3 })).status, 200);
  const counts = async () => ({
    events: (await host.db.db.selectFrom("pm_task_events").select("id").execute()).length,
    outbox: (await host.db.db.selectFrom("outbox").select("id").execute()).length,
  });
  const before = await counts();
  const principal = { kind: "user" as const, userId: owner.userId };
  // The outbox writes its row and then fails: the value, the task write and the TaskEvent before it must roll back too.
  const broken = Effect.flatMap(Outbox, (real) =>
    setTaskFieldValue(principal, task.id, points.id, 13).pipe(
      Effect.provideService(Outbox, { append: (events) => Effect.zipRight(real.append(events), Effect.dieMessage("outbox outage")) }),
    ),
  );
  await t.rejects(host.run(broken), /outbox outage/);
  const cleared = Effect.flatMap(Outbox, (real) =>
    setTaskFieldValue(principal, task.id, points.id, null).pipe(
      Effect.provideService(Outbox, { append: (events) => Effect.zipRight(real.append(events), Effect.dieMessage("outbox outage")) }),
    ),
  );
  await t.rejects(host.run(cleared), /outbox outage/);
  t.same(await counts(), before, "no TaskEvent and no outbox row survived");
  const values = await owner.call("GET", `/v1/tasks/${task.id}/fields`);
  t.same(values.body.data.map((v: { value: unknown }) => v.value), [3], "the value is as it was");
  t.equal((await owner.call("GET", `/v1/tasks/${task.id}`)).body.version, 2, "the version is as it was");
});

forEachDialectConfig(t, `concurrent value writes lose no update: one If-Match winner, and every unconditional write gets its own version`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const fields = [];
  for (let i = 0; i < 6; i++) fields.push((await owner.call("POST", `/v1/projects/${projectId}/fields`, { name: `F${i}`, type: "number" })).body);
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Contended" })).body;

  // Real parallel HTTP requests (a pool of connections on Postgres) with the same expected version.
  const raced = await Promise.all(fields.map((f, i) => owner.call("PUT", `/v1/tasks/${task.id}/fields/${f.id}`, { value: i }, { "If-Match": '"1"' })));
  t.same(raced.map((r) => r.status).sort(), [200, 412, 412, 412, 412, 412], "exactly one writer with the same expected version wins");
  t.equal((await owner.call("GET", `/v1/tasks/${task.id}`)).body.version, 2);

  // Unconditional writes of different fields, racing with a PATCH of the title.
  const [patch, ...writes] = await Promise.all([
    owner.call("PATCH", `/v1/tasks/${task.id}`, { title: "Renamed" }, { "If-Match": '"2"' }),
    ...fields.map((f, i) => owner.call("PUT", `/v1/tasks/${task.id}/fields/${f.id}`, { value: 100 + i })),
  ]);
  t.ok(writes.every((w) => w.status === 200), "every unconditional value write succeeds");
  const versions = writes.map((w) => Number(JSON.parse(w.headers.get("etag")!)));
  const after = (await owner.call("GET", `/v1/tasks/${task.id}`)).body;
  const patched = patch!.status === 200 ? 1 : 0;
  t.equal(after.version, 2 + writes.length + patched, "each accepted change advanced the version once");
  t.equal(new Set(versions).size, writes.length, "no two writes produced the same version");
  if (patched === 1) t.equal(after.title, "Renamed", "the PATCH was not overwritten by a value write");
  const values = (await owner.call("GET", `/v1/tasks/${task.id}/fields`)).body.data as Array<{ field_id: string; value: number }>;
  t.same(
    Object.fromEntries(values.map((v) => [v.field_id, v.value])),
    Object.fromEntries(fields.map((f, i) => [f.id, 100 + i])),
    "every value is stored",
  );
  const facts = (await outboxEvents(host, "TaskChanged")).map((e) => e.aggregate_version);
  t.same([...facts].sort((a, b) => a - b), facts, "TaskChanged versions were committed in order");
  t.equal(new Set(facts).size, facts.length, "one TaskChanged per version");
});
