/**
 * Spec rules 9 and 10 (notifications side): the Mailer port's two adapters work (SMTP through
 * nodemailer against a local SMTP listener; the development folder writer, one file per
 * message id); mention e-mail is a durable job per notification, retried while the mailer is
 * down and sent once it is back; and an outage of realtime delivery and of mail never fails a
 * task write or a comment write — SQLite and Postgres.
 */
import t from "tap";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Layer } from "effect";
import { makeFolderMailer } from "../../adapters/mail/FolderMailer.js";
import { makeSmtpMailer } from "../../adapters/mail/SmtpMailer.js";
import { addComment } from "../../core/projects/Comments.js";
import { revokeProjectMembership } from "../../core/projects/Projects.js";
import { removeWorkspaceMember } from "../../core/projects/Workspaces.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { mentionEmailJobKind } from "../../core/projects/MentionNotifications.js";
import { updateTask } from "../../core/projects/UpdateTask.js";
import { MailDeliveryFailed, type Mailer, type MailMessage } from "../../ports/Mailer.js";
import { ChannelLog, RealtimeBus } from "../../ports/Realtime.js";
import { forEachDialect } from "../support/databases.js";
import { at } from "../worker/fixtures.js";
import { coreFixture, drainJobs, drainOutbox, slice2aRuntime } from "./notifications-support.js";

const message = (id: string): MailMessage => ({ messageId: `<${id}@domainkit>`, to: "someone@users.invalid", subject: "Hi", text: `body ${id}` });

t.test("the folder mailer writes one file per message id (making the folder when missing); a retried message overwrites it", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "domainkit-mail-"));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  const mailer = makeFolderMailer({ folder: join(folder, "out"), from: "dk@localhost" });
  await Effect.runPromise(mailer.send(message("n1")));
  await Effect.runPromise(mailer.send(message("n1")));
  await Effect.runPromise(mailer.send(message("n2")));
  const files = readdirSync(join(folder, "out")).sort();
  t.same(files, ["_n1_domainkit_.eml", "_n2_domainkit_.eml"]);
  const text = readFileSync(join(folder, "out", files[0]!), "utf8");
  t.match(text, /Message-ID: <n1@domainkit>\r\nFrom: dk@localhost\r\nTo: someone@users.invalid\r\nSubject: Hi/);
  t.match(text, /body n1/);
  // The folder is made when a write finds it missing, not before every write: removed, it comes back.
  rmSync(join(folder, "out"), { recursive: true, force: true });
  await Effect.runPromise(mailer.send(message("n3")));
  t.same(readdirSync(join(folder, "out")), ["_n3_domainkit_.eml"]);
});

/** A minimal SMTP listener on 127.0.0.1 that records each message's DATA. */
const smtpListener = async (t: { teardown: (fn: () => unknown) => unknown }) => {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let buffer = "";
    let inData = false;
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          received.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write("250 queued\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith("EHLO") || line.startsWith("HELO")) socket.write("250 test\r\n");
        else if (line.startsWith("DATA")) {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (line.startsWith("QUIT")) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return { received, port: typeof address === "object" && address !== null ? address.port : 0 };
};

t.test("the SMTP mailer delivers through nodemailer; an unreachable server is MailDeliveryFailed", async (t) => {
  const { received, port } = await smtpListener(t);
  const mailer = makeSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "dk@localhost" });
  t.teardown(() => mailer.close());
  await Effect.runPromise(mailer.send(message("n1")));
  t.equal(received.length, 1);
  t.match(received[0], /Message-ID: <n1@domainkit>/);
  t.match(received[0], /To: someone@users.invalid/);
  t.match(received[0], /body n1/);
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  const refused = makeSmtpMailer({ url: "smtp://127.0.0.1:1", from: "dk@localhost" });
  t.teardown(() => refused.close());
  const failure = await Effect.runPromise(Effect.flip(refused.send(message("n2"))));
  t.type(failure, MailDeliveryFailed);
  t.equal(failure.code, "mail_delivery_failed");
});

/** A mailer that fails while `down` is set. */
const switchableMailer = () => {
  const state = { down: true, sent: [] as MailMessage[] };
  const mailer: Mailer = {
    send: (m) => (state.down ? Effect.fail(new MailDeliveryFailed({ detail: "smtp is down" })) : Effect.sync(() => void state.sent.push(m))),
  };
  return { mailer, state };
};

const brokenRealtime = Layer.mergeAll(
  Layer.succeed(RealtimeBus, { publish: () => Effect.dieMessage("realtime is down"), listen: () => Effect.dieMessage("realtime is down") }),
  Layer.succeed(ChannelLog, {
    append: () => Effect.dieMessage("realtime is down"),
    readSince: () => Effect.dieMessage("realtime is down"),
    trim: () => Effect.dieMessage("realtime is down"),
    head: () => Effect.dieMessage("realtime is down"),
  }),
);

t.test("outages of realtime delivery and mail never fail a task write or comment write; mention e-mail is a retried durable job", (t) =>
  forEachDialect(t, "outage", async (t, db) => {
    const { mailer, state } = switchableMailer();
    const { run, attempt } = slice2aRuntime(t, db, { mailer, overrides: brokenRealtime });
    const { owner, project, users } = await coreFixture(run, { alice: { workspace: "member", project: "viewer" } });
    const created = await attempt(createTask(owner, project.id, { title: "Keep going" }));
    t.equal(created.ok, true, "a task create succeeds while realtime and mail are down");
    const task = created.ok ? created.value : (undefined as never);
    const commented = await attempt(addComment(owner, task.id, { body: "@alice ping", mentions: [users.alice!.userId], clientMutationId: "c1" }));
    t.equal(commented.ok, true, "a comment with a mention succeeds too");
    const patched = await attempt(updateTask(owner, task.id, 1, { title: "Keep going, really" }));
    t.match(patched, { ok: true, value: { version: 2 } }, "and a conditional PATCH");

    const relay = await run(drainOutbox());
    t.ok(relay.retried > 0, "the realtime consumer fails and is retried");
    const notifications = await db.db.selectFrom("pm_notifications").select("id").where("recipient_id", "=", users.alice!.userId).execute();
    t.equal(notifications.length, 1, "the mention consumer is not held up by the realtime outage");

    await run(drainJobs());
    const failed = await db.db.selectFrom("jobs").selectAll().where("kind", "=", mentionEmailJobKind).executeTakeFirstOrThrow();
    t.equal(failed.status, "pending", "the e-mail job waits for a retry");
    t.equal(Number(failed.attempts), 1);
    t.match(String(failed.last_error), /MailDeliveryFailed/, "the failure is recorded on the job");
    t.equal(state.sent.length, 0);

    state.down = false;
    await run(at(Date.now() + 10 * 60_000)(drainJobs()));
    const done = await db.db.selectFrom("jobs").selectAll().where("kind", "=", mentionEmailJobKind).executeTakeFirstOrThrow();
    t.equal(done.status, "done", "the retry succeeds once the mailer is back");
    t.equal(state.sent.length, 1, "exactly one e-mail");
    t.equal(state.sent[0]!.to, `${users.alice!.userId}@users.invalid`);
    t.equal(state.sent[0]!.messageId, `<${notifications[0]!.id}@domainkit>`, "its message id is the notification's");
  }),
);

/**
 * Spec (What the service does: "without leaking workspace data"; Relationships 2: access "is
 * rechecked"): a mention e-mail is sent only to a recipient who can still see the project when it
 * is sent. A mail job retried through an outage must not deliver the comment's excerpt and the
 * task's title to someone whose membership was revoked meanwhile.
 */
t.test("a mention e-mail is not sent to a recipient who lost access to the project before it went out", (t) =>
  forEachDialect(t, "mail after revocation", async (t, db) => {
    const { mailer, state } = switchableMailer();
    const { run } = slice2aRuntime(t, db, { mailer });
    const { owner, project, workspace, users } = await coreFixture(run, {
      alice: { workspace: "member", project: "viewer" },
      bob: { workspace: "member", project: "viewer" },
    });
    const task = await run(createTask(owner, project.id, { title: "Secret roadmap" }));
    await run(addComment(owner, task.id, { body: "@alice @bob the numbers", mentions: [users.alice!.userId, users.bob!.userId], clientMutationId: "c1" }));
    await run(drainOutbox());
    const notified = await db.db.selectFrom("pm_notifications").select("recipient_id").execute();
    t.equal(notified.length, 2, "both mentioned viewers are notified while they see the project");
    await run(drainJobs());
    t.equal(state.sent.length, 0, "the mailer is down: nothing sent yet");

    // While the mail waits for its retry, alice leaves the project and bob the workspace.
    await run(revokeProjectMembership(owner, project.id, { userId: users.alice!.userId, reason: "left the team" }));
    await run(removeWorkspaceMember(owner, workspace.id, { userId: users.bob!.userId, reason: "left the company" }));
    state.down = false;
    await run(at(Date.now() + 10 * 60_000)(drainJobs()));
    t.same(state.sent, [], "no e-mail reaches a recipient who can no longer see the project");
    const jobs = await db.db.selectFrom("jobs").select(["status"]).where("kind", "=", mentionEmailJobKind).execute();
    t.same(
      jobs.map((j) => j.status),
      ["done", "done"],
      "the jobs end (skipped), not retried forever",
    );
  }),
);
