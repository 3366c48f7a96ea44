/**
 * A realtime client written from the documentation alone (conventions.md, Realtime; README,
 * Projects), against the reference server over HTTP and `/v1/realtime`: subscribe, receive,
 * unsubscribe; resume after a dropped connection from the last offset seen (events written while
 * away arrive once and in order); a resume offset the server no longer keeps answers `resync`;
 * another tenant's channel answers exactly as a channel that does not exist; losing membership
 * drops the live subscription; revoking sessions closes the socket with 4401 — SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { Effect } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { cli, forEachDialectConfig, hostSecret } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "../projects/support.js";
import { TestClient, type Received } from "./fixtures.js";

/**
 * The client an app would write: one socket at a time, the last offset seen per channel, resubscribe
 * with `since` after a reconnect; every event it keeps is checked for gaps and duplicates.
 */
class ResumingClient {
  socket!: TestClient;
  readonly lastOffset = new Map<string, number>();
  /** Every event kept, over every connection, as [channel, offset, event id]. */
  readonly kept: Array<[string, number, string]> = [];
  readonly duplicates: number[] = [];

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async connect(): Promise<void> {
    this.socket = await TestClient.connect(this.url, { token: this.token });
    this.socket.socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Received;
      if (message.type === "subscribed" && !this.lastOffset.has(message.channel)) this.lastOffset.set(message.channel, message.offset);
      if (message.type === "resync") this.lastOffset.set(message.channel, message.offset);
      if (message.type !== "event") return;
      const last = this.lastOffset.get(message.channel) ?? 0;
      if (message.offset <= last) {
        this.duplicates.push(message.offset);
        return;
      }
      this.lastOffset.set(message.channel, message.offset);
      this.kept.push([message.channel, message.offset, message.event.id]);
    });
  }

  /** Subscribes from where this client stands on `channel` (none: from the head; `fromStart`: from offset 0). */
  async subscribe(channel: string, fromStart = false): Promise<Received> {
    if (fromStart) this.lastOffset.set(channel, 0);
    const since = this.lastOffset.get(channel);
    const before = this.socket.received.length;
    this.socket.send({ type: "subscribe", channel, ...(since === undefined ? {} : { since }) });
    return this.socket.next((m) => this.socket.received.indexOf(m) >= before && m.channel === channel && (m.type === "subscribed" || m.type === "error"));
  }

  /** Resolves with the event of `channel` about `aggregateId` once this connection received it. */
  saw(channel: string, aggregateId: string): Promise<Received> {
    return this.socket.next((m) => m.type === "event" && m.channel === channel && m.event.aggregate_id === aggregateId);
  }

}

const realtimeUrl = (serverUrl: string): string => `${serverUrl.replace("http", "ws")}/v1/realtime`;
const tokenOf = (userId: string): Promise<string> => mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });

forEachDialectConfig(t, "a client resumes from the last offset it saw after a dropped connection: no event lost, none twice, in order", async (t, config) => {
  const { client, server } = await startProjectsServer(t, config);
  const { owner, projectId, clients } = await projectFixture(client, { dev: { workspace: "member", project: "contributor" } });
  const channel = `project:${projectId}`;
  const url = realtimeUrl(server.url);
  // The owner's socket stays up throughout: what it sees is what the log holds.
  const watcher = new ResumingClient(url, await tokenOf(owner.userId));
  await watcher.connect();
  t.teardown(() => watcher.socket.close());
  const dev = new ResumingClient(url, await tokenOf(clients.dev!.userId));
  await dev.connect();
  t.teardown(() => dev.socket.socket.terminate());
  t.match(await watcher.subscribe(channel, true), { type: "subscribed", channel, offset: Number });
  t.match(await dev.subscribe(channel, true), { type: "subscribed", channel, offset: Number });

  const createTask = async (title: string): Promise<string> => {
    const created = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title });
    t.equal(created.status, 201);
    return created.body.id as string;
  };
  for (const title of ["one", "two"]) await createTask(title);
  const third = await createTask("three");
  await watcher.saw(channel, third);
  await dev.saw(channel, third);

  // The connection drops without a close handshake; the project moves on meanwhile.
  dev.socket.socket.terminate();
  t.equal((await dev.socket.closedWithin()).code, 1006, "dropped");
  for (const title of ["four", "five"]) await createTask(title);
  const sixth = await watcher.saw(channel, await createTask("six"));

  await dev.connect();
  const resumed = await dev.subscribe(channel);
  t.match(resumed, { type: "subscribed", channel, offset: sixth.offset }, "subscribed answers the head");
  const seventh = await createTask("seven");
  await watcher.saw(channel, seventh);
  await dev.saw(channel, seventh);
  t.same(dev.duplicates, [], "no event twice");
  t.ok(dev.kept.length >= 7, `the seven tasks' events at least (${dev.kept.length})`);
  t.same(dev.kept, watcher.kept, "every event the log holds, in offset order, once, across both connections");

  // Unsubscribe: an event written after the answer is not sent on that subscription; resubscribing
  // with since brings it, after `subscribed`.
  const beforeUnsubscribe = dev.socket.received.length;
  dev.socket.send({ type: "unsubscribe", channel });
  const unsubscribed = await dev.socket.next((m) => dev.socket.received.indexOf(m) >= beforeUnsubscribe && m.type === "unsubscribed");
  t.same(unsubscribed, { type: "unsubscribed", channel, reason: "client" });
  const eighth = await createTask("eight");
  await watcher.saw(channel, eighth);
  t.match(await dev.subscribe(channel), { type: "subscribed", channel });
  await dev.saw(channel, eighth);
  const sinceUnsubscribed = dev.socket.received.slice(dev.socket.received.indexOf(unsubscribed) + 1);
  t.same(sinceUnsubscribed.slice(0, sinceUnsubscribed.findIndex((m) => m.type === "subscribed")), [], "nothing arrived while unsubscribed");
  t.same(dev.kept, watcher.kept, "the event written while unsubscribed comes with since");
});

forEachDialectConfig(t, "a resume offset the server no longer keeps (or never gave) answers resync with the head; events continue from there", async (t, config) => {
  const { client, server } = await startProjectsServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const channel = `project:${projectId}`;
  const watcher = new ResumingClient(realtimeUrl(server.url), await tokenOf(owner.userId));
  await watcher.connect();
  t.teardown(() => watcher.socket.close());
  await watcher.subscribe(channel, true);
  for (const title of ["one", "two"]) await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title });
  const third = await watcher.saw(channel, (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "three" })).body.id);
  // What the hourly maintenance does after 24 hours: the older messages go, each channel keeps its newest.
  const trimmed = await server.core.runtime.runPromise(Effect.flatMap(ChannelLog, (log) => log.trim(new Date(Date.now() + 60_000))));
  t.ok(trimmed >= 1, "older messages were trimmed");

  const late = await TestClient.connect(realtimeUrl(server.url), { token: await tokenOf(owner.userId) });
  t.teardown(() => late.close());
  t.ok(third.offset > 1, "the log held more than one message");
  late.send({ type: "subscribe", channel, since: 1 });
  t.same(await late.next((m) => m.type === "subscribed"), { type: "subscribed", channel, offset: third.offset });
  t.same(await late.next((m) => m.type === "resync"), { type: "resync", channel, offset: third.offset }, "reload, then continue from offset");
  const other = `project:${(await owner.call("POST", `/v1/workspaces/${(await owner.call("GET", `/v1/projects/${projectId}`)).body.workspace_id}/projects`, { name: "Other" })).body.id}`;
  late.send({ type: "subscribe", channel: other, since: 42 });
  const beyond = await late.next((m) => m.type === "resync" && m.channel === other);
  t.match(beyond, { type: "resync", channel: other, offset: Number }, "an offset beyond the head (another server's log, a reset one) answers resync too");
  t.ok(beyond.offset < 42, "with the head");
  await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "four" });
  const fourth = await late.next((m) => m.type === "event" && m.channel === channel);
  t.equal(fourth.offset, third.offset + 1, "the next event follows the head");
  t.equal(late.received.filter((m) => m.type === "event" && m.channel === channel).length, 1, "none of the trimmed ones");
});

forEachDialectConfig(t, "another tenant's channel answers as one that does not exist; a removed member's subscription is dropped; revoked sessions close the socket 4401", async (t, config) => {
  const { client, server } = await startProjectsServer(t, config);
  const mine = await projectFixture(client, { dev: { workspace: "member", project: "contributor" } });
  const theirs = await projectFixture(client);
  const dev = mine.clients.dev!;
  const token = await tokenOf(dev.userId);
  const socket = await TestClient.connect(realtimeUrl(server.url), { token });
  t.teardown(() => socket.close());
  const answer = async (channel: string): Promise<Received> => {
    const before = socket.received.length;
    socket.send({ type: "subscribe", channel });
    const message = await socket.next((m) => socket.received.indexOf(m) >= before && m.channel === channel);
    return { ...message, channel: "<channel>" };
  };
  const foreign = await answer(`project:${theirs.projectId}`);
  t.same(foreign, { type: "error", channel: "<channel>", code: "not_found" });
  t.same(await answer(`project:${randomUUID()}`), foreign, "a project that does not exist answers the same");
  t.same(await answer(`project:not-a-uuid`), foreign, "an id that cannot exist answers the same");
  t.same(await answer(`nothing:${theirs.projectId}`), foreign, "an unknown kind answers the same");

  const channel = `project:${mine.projectId}`;
  t.match(await answer(channel), { type: "subscribed" });
  t.equal((await mine.owner.call("DELETE", `/v1/projects/${mine.projectId}/members/${dev.userId}?reason=rotation`)).status, 204);
  t.same(await socket.next((m) => m.type === "unsubscribed"), { type: "unsubscribed", channel, reason: "access_revoked" });
  const before = socket.received.length;
  t.same(await answer(channel), foreign, "subscribing again answers not_found");
  t.equal(socket.received.slice(before).filter((m) => m.type === "event").length, 0);

  // What POST /v1/sessions/revoke does (test/hosts/reference-server.test.ts), as the operator's command.
  await cli(config, ["revoke", "--user", dev.userId]);
  t.same(await socket.closedWithin(), { code: 4401, reason: "token_revoked" });
  const refused = await TestClient.connect(realtimeUrl(server.url), { token }).then(
    (c) => (c.close(), null),
    (error: unknown) => error,
  );
  // Its code is invalid_token today, where HTTP answers token_revoked: test/ws/upgrade-refusal-codes.test.ts.
  t.match(refused, { status: 401, contentType: "application/problem+json", body: { code: String } }, "the old token cannot reconnect");
});
