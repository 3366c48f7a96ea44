/**
 * Spec, Limits: "Invitations, mentions and public shares are rate-limited." Each is a named
 * action budget per principal: over budget answers 429 rate_limited with Retry-After and
 * writes nothing (no membership, comment or share link); a comment spends one point per
 * distinct mentioned user and a comment without mentions spends nothing; one user's spending
 * never limits another user. Workspace exports (costly jobs) have a budget too — SQLite and Postgres.
 */
import t, { type Test } from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "./support.js";

const hour = 3600;
const budgets = (points: { invitations?: number; mentions?: number; shares?: number; exports?: number }) => ({
  actionBudgets: {
    invitations: { points: points.invitations ?? 100, windowSeconds: hour },
    mentions: { points: points.mentions ?? 100, windowSeconds: hour },
    shares: { points: points.shares ?? 100, windowSeconds: hour },
    exports: { points: points.exports ?? 100, windowSeconds: hour },
  },
});

forEachDialectConfig(t, "invitations over budget answer 429 and invite nobody", async (t, config) => {
  const { client, db } = await startProjectsServer(t, config, budgets({ invitations: 2 }));
  const owner = await client();
  const workspace = await owner.call("POST", "/v1/workspaces", { name: "Acme" });
  const members = await Promise.all([client(), client(), client()]);
  const answers = [];
  for (const member of members) {
    answers.push(await owner.call("POST", `/v1/workspaces/${workspace.body.id}/invitations`, { user_id: member.userId, role: "member" }));
  }
  t.same(answers.map((a) => a.status), [201, 201, 429], "two invitations fit the budget, the third does not");
  const refused = answers[2]!;
  t.equal(refused.body.code, "rate_limited");
  t.match(refused.headers.get("content-type"), /application\/problem\+json/);
  t.ok(Number(refused.headers.get("retry-after")) >= 1, "Retry-After tells when to retry");
  const third = members[2]!;
  t.same((await third.call("GET", "/v1/invitations")).body.data, [], "the refused invitation was not written");
  const stored = await db.db.selectFrom("pm_workspace_invitations").select("user_id").where("workspace_id", "=", workspace.body.id).execute();
  t.equal(stored.length, 2, "only the two invitations within the budget are stored");
  t.equal((await third.call("GET", `/v1/workspaces/${workspace.body.id}`)).status, 404, "and no membership");

  // Another owner invites with a budget of its own.
  const otherOwner = await client();
  const other = await otherOwner.call("POST", "/v1/workspaces", { name: "Other" });
  const invited = await otherOwner.call("POST", `/v1/workspaces/${other.body.id}/invitations`, { user_id: third.userId, role: "member" });
  t.equal(invited.status, 201, "one user's spending does not limit another");
});

forEachDialectConfig(t, "mentions spend one point per mentioned user; over budget no comment is written", async (t, config) => {
  const { client } = await startProjectsServer(t, config, budgets({ mentions: 3 }));
  const { owner, projectId, clients } = await projectFixture(client, {
    a: { workspace: "member", project: "viewer" },
    b: { workspace: "member", project: "viewer" },
  });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Budget" });
  const mention = [clients.a!.userId, clients.b!.userId];
  const first = await owner.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: "hi", mentions: [...mention, mention[0]], client_mutation_id: "m1" });
  t.equal(first.status, 201, "two distinct mentions spend two of three points");
  const plain = await owner.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: "no mentions", mentions: [], client_mutation_id: "m2" });
  t.equal(plain.status, 201, "a comment without mentions spends nothing");
  const second = await owner.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: "again", mentions: mention, client_mutation_id: "m3" });
  t.equal(second.status, 429, "two more mentions exceed the budget");
  t.equal(second.body.code, "rate_limited");
  const comments = await owner.call("GET", `/v1/tasks/${task.body.id}/comments`);
  t.same(
    comments.body.data.map((c: { body: string }) => c.body),
    ["hi", "no mentions"],
    "the refused comment was not written",
  );
});

forEachDialectConfig(t, "public share links over budget answer 429 and create no link", async (t, config) => {
  const { client } = await startProjectsServer(t, config, budgets({ shares: 1 }));
  const { owner, projectId } = await projectFixture(client);
  const first = await owner.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 3600 });
  t.equal(first.status, 201);
  const second = await owner.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 3600 });
  t.equal(second.status, 429);
  t.equal(second.body.code, "rate_limited");
  const links = await owner.call("GET", `/v1/projects/${projectId}/share-links`);
  t.equal(links.body.data.length, 1, "only the first link exists");
});

forEachDialectConfig(t, "workspace exports over budget answer 429 and start no export (every batch has a bound)", async (t, config) => {
  const { client } = await startProjectsServer(t, config, budgets({ exports: 2 }));
  const { owner, workspaceId } = await projectFixture(client);
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`, undefined, { "Idempotency-Key": `export-${i}` }));
  t.same(answers.map((a) => a.status), [202, 202, 429], "two exports fit the budget, the third does not");
  t.equal(answers[2]!.body.code, "rate_limited");
  t.ok(Number(answers[2]!.headers.get("retry-after")) >= 1, "Retry-After tells when to retry");
});
