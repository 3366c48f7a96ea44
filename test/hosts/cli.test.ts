/**
 * The CLI as an operator uses it: `migrate` is safe to run twice, `token` prints a JWT the
 * server accepts (carrying the user's current epoch), `revoke` makes older tokens fail, and a
 * bad invocation exits 2 with the usage text. Two claims run the CLI as a process; the others
 * run its `main` in this process (test/hosts/support.ts `cli`).
 */
import t from "tap";
import { cli, cliProcess, startReferenceServer, testConfig } from "./support.js";
import type { Config } from "../../hosts/Config.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe88";

t.test("migrate applies the kernel migrations once and nothing the second time", async (t) => {
  const config = await testConfig("sqlite", t, {}, { migrated: false });
  // As a process (the bin's module entry), then in this process (hosts/cli.ts main).
  const first = JSON.parse((await cliProcess(config, ["migrate"])).stdout) as { applied: string[] };
  t.ok(first.applied.includes("kernel/0001_kernel_tables"));
  const second = JSON.parse((await cli(config, ["migrate"])).stdout) as { applied: string[] };
  t.same(second.applied, [], "a second run applies nothing");
});

t.test("a token from the token command is accepted until the user is revoked", async (t) => {
  const config = await testConfig("sqlite", t);
  const token = (await cli(config, ["token", "--user", userId, "--ttl", "600"])).stdout.trim();
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, "prints one JWT");
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
  const me = (tok: string) => fetch(`${server.url}/v1/sessions/revoke`, { method: "POST", headers: { Authorization: `Bearer ${tok}` } });
  const revoked = JSON.parse((await cli(config, ["revoke", "--user", userId])).stdout) as { epoch: number };
  t.equal(revoked.epoch, 1);
  const refused = await me(token);
  t.equal(refused.status, 401, "the token minted before revocation is refused");
  t.equal(((await refused.json()) as { code: string }).code, "token_revoked");
  const fresh = (await cli(config, ["token", "--user", userId])).stdout.trim();
  t.equal((await me(fresh)).status, 200, "a token minted after revocation carries the new epoch");
});

t.test("a bad invocation exits 2 and prints the usage (the process)", async (t) => {
  const config = await testConfig("sqlite", t);
  const failure = await cliProcess(config, ["token", "--user", "not-a-uuid"]).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(failure?.code, 2);
  t.match(failure?.stderr ?? "", /Usage: domainkit/);
});

t.test("dead-letters lists nothing on a fresh database", async (t) => {
  const config = await testConfig("sqlite", t);
  const listed = JSON.parse((await cli(config, ["dead-letters"])).stdout) as { jobs: unknown[]; messages: unknown[] };
  t.same(listed, { jobs: [], messages: [] });
});

t.test("merchant create prints the API key once, and that key can create a payment intent", async (t) => {
  const config = await testConfig("sqlite", t);
  const created = JSON.parse((await cli(config, ["merchant", "create", "--name", "Acme", "--scopes", "payments:write"])).stdout) as {
    merchant_id: string;
    api_key: string;
  };
  t.match(created.merchant_id, /^[0-9a-f-]{36}$/);
  t.match(created.api_key, /^sk_test_/);
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
  const response = await fetch(`${server.url}/v1/payment-intents`, {
    method: "POST",
    headers: { Authorization: `Bearer ${created.api_key}`, "Idempotency-Key": "cli-test-1", "Content-Type": "application/json" },
    body: JSON.stringify({ amount_minor: 1250, currency: "EUR" }),
  });
  t.equal(response.status, 201);
  t.match(await response.json(), { amount_minor: 1250, currency: "EUR" });
});
