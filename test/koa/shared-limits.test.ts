/**
 * Limits that hold across server processes on Postgres (spec, Limits: "invitations, mentions and
 * public shares are rate-limited"; docs/decisions.md, "Budgets shared by the server processes"):
 * the shared action budgets and the failed-authentication budget count in the database, so two
 * processes meet one budget; the per-minute delivery throttles still count per process.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { makeActionBudgets } from "../../adapters/koa/ActionBudgets.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { RateLimited } from "../../adapters/koa/HttpErrors.js";
import { failedAuthentications } from "../../adapters/koa/RateLimit.js";
import { openPostgres, postgresPool } from "../../adapters/postgres/openPostgres.js";
import { postgresLimiters } from "../../adapters/postgres/PostgresLimiters.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { createTestPostgresDatabase, type HasTeardown } from "../support/databases.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";

/** Two pools on one migrated database: the stores of two server processes. */
const twoProcesses = async (t: HasTeardown) => {
  const url = await createTestPostgresDatabase(t);
  const one = await openPostgres({ connectionString: url, max: 2 });
  t.teardown(one.close);
  await migrate(one, []);
  const two = await openPostgres({ connectionString: url, max: 2 });
  t.teardown(two.close);
  return [postgresLimiters(postgresPool(one)!), postgresLimiters(postgresPool(two)!)] as const;
};

const refused = (spend: Promise<void>): Promise<boolean> =>
  spend.then(
    () => false,
    (error: unknown) => {
      if (error instanceof RateLimited) return true;
      throw error;
    },
  );

t.test("a shared action budget is one budget for two server processes", async (t) => {
  const [storeA, storeB] = await twoProcesses(t);
  const limits = { invitations: { points: 3, windowSeconds: 3600 }, delivery_locations: { points: 1, windowSeconds: 600 } };
  const spendA = makeActionBudgets(limits, storeA);
  const spendB = makeActionBudgets(limits, storeB);
  const caller = `user:${randomUUID()}`;
  t.equal(await refused(spendA("invitations", caller, 2)), false, "two invitations through the first");
  t.equal(await refused(spendB("invitations", caller, 1)), false, "the third through the second");
  t.equal(await refused(spendB("invitations", caller, 1)), true, "the fourth is refused by the second");
  t.equal(await refused(spendA("invitations", caller, 1)), true, "and by the first");
  t.equal(await refused(spendA("invitations", `user:${randomUUID()}`, 1)), false, "another caller has a budget of its own");
  // A per-minute throttle on a hot path counts per process.
  t.equal(await refused(spendA("delivery_locations", caller, 1)), false);
  t.equal(await refused(spendB("delivery_locations", caller, 1)), false, "the second process counts its own");
});

t.test("failed authentications from one IP spend one budget across processes", async (t) => {
  const [storeA, storeB] = await twoProcesses(t);
  const limits = { failedAuthenticationPoints: 3, failedAuthenticationWindowSeconds: 300 };
  const a = failedAuthentications(limits, storeA);
  const b = failedAuthentications(limits, storeB);
  const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
  await a.record(ip);
  await a.record(ip);
  t.equal(a.retryAfterSeconds(ip), null, "two failures leave one");
  await b.record(ip);
  t.ok((b.retryAfterSeconds(ip) ?? 0) > 0, "the third, recorded by the second process, spends the shared budget");
  t.equal(a.retryAfterSeconds(ip), null, "the first process has not met the spent budget yet");
  await a.record(ip);
  t.ok((a.retryAfterSeconds(ip) ?? 0) > 0, "its next failure meets it: at most one more failure per process");
});

t.test("two reference servers on one Postgres refuse the invitation over the shared budget", async (t) => {
  const config = await testConfig("postgres", t);
  const budgets = { actionBudgets: { invitations: { points: 2, windowSeconds: 3600 } } };
  const { server: one } = await startReferenceServer(t, config, budgets);
  const { server: two } = await startReferenceServer(t, config, budgets);
  const owner = randomUUID();
  const token = await mintToken({ secret: hostSecret, userId: owner, ttlSeconds: 600 });
  const post = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const workspace = (await (await post(one.url, "/v1/workspaces", { name: "Shared budget" })).json()) as { id: string };
  const invite = (url: string) => post(url, `/v1/workspaces/${workspace.id}/invitations`, { user_id: randomUUID(), role: "member" });
  t.equal((await invite(one.url)).status, 201, "first invitation through the first server");
  t.equal((await invite(two.url)).status, 201, "second through the second");
  const third = await invite(one.url);
  t.equal(third.status, 429, "the third is over the budget both servers count");
  t.ok(Number(third.headers.get("retry-after")) > 0, "with Retry-After");
});
