/**
 * Conventions, Lists: "Every list answers {data, next_cursor}", with `cursor` and `limit` (at most
 * 200), keyset pages stable while rows are added, and 400 `invalid_cursor` for a cursor the server
 * cannot read. A merchant's API keys and live webhook endpoints were answered whole, with no
 * bound: they are keyset pages, newest first, the merchant's own only.
 */
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call } from "./support.js";

const scopes = ["payments:write", "ledger:read", "keys:write", "webhooks:write"];

t.test("a merchant's API keys and webhook endpoints are listed in keyset pages, newest first, its own only", (t) =>
  forEachDialectConfig(t, "merchant lists", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const owner = await createMerchantWithKey(server.core.runtime, { name: "Lists shop", scopes });
    const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes });
    const keysUrl = `${server.url}/v1/api-keys`;
    const hooksUrl = `${server.url}/v1/webhook-endpoints`;
    for (let i = 0; i < 3; i += 1) t.equal((await call(keysUrl, { key: owner.api_key, body: { scopes: ["ledger:read"] } })).status, 201);
    for (let i = 0; i < 3; i += 1) t.equal((await call(hooksUrl, { key: owner.api_key, body: { url: `http://127.0.0.1:9/hook-${i}` } })).status, 201);

    for (const [name, url, total] of [["api keys", keysUrl, 4], ["webhook endpoints", hooksUrl, 3]] as const) {
      const whole = await call(url, { key: owner.api_key });
      t.equal(whole.status, 200);
      t.equal(whole.body.next_cursor, null, `${name}: one page when it fits`);
      const all = (whole.body.data as Array<{ id: string }>).map((row) => row.id);
      t.equal(all.length, total, `${name}: every one of the merchant's`);
      t.same(all, [...all].sort().reverse(), `${name}: newest first`);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof call>> = await call(`${url}?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`, { key: owner.api_key });
        t.equal(page.status, 200);
        t.ok((page.body.data as unknown[]).length <= 2, `${name}: at most limit`);
        seen.push(...(page.body.data as Array<{ id: string }>).map((row) => row.id));
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null);
      t.same(seen, all, `${name}: the pages, followed, are the whole list once`);
      t.match(await call(`${url}?limit=201`, { key: owner.api_key }), { status: 400 }, `${name}: limit at most 200`);
      t.match(await call(`${url}?cursor=not-a-cursor`, { key: owner.api_key }), { status: 400, body: { code: "invalid_cursor" } }, `${name}: an unreadable cursor`);
      const theirs = await call(url, { key: other.api_key });
      t.notOk((theirs.body.data as Array<{ id: string }>).some((row) => all.includes(row.id)), `${name}: another merchant sees none of them`);
    }
  }),
);
