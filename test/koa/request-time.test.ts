/**
 * Conventions, HTTP: timestamps are RFC 3339. A time a client sends is read only in that form
 * (4-digit year, Z or an offset): `+275760-…` sorted before `2026-…` as SQLite text and some years
 * failed on Postgres, and forms like "Nov 28 2026" were read by guesswork. Over HTTP on an API key's
 * expiry (both databases), and the decoder itself.
 */
import { Either, Schema } from "effect";
import t from "tap";
import { RequestTime } from "../../adapters/koa/RequestTime.js";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call } from "../payments/support.js";

const decode = Schema.decodeUnknownEither(RequestTime);

t.test("a request time is an RFC 3339 date-time with a 4-digit year", async (t) => {
  for (const good of ["2026-11-28T15:00:00Z", "2026-11-28T15:00:00.123Z", "2026-11-28T16:00:00+01:00", "2026-11-28t15:00:00z"]) {
    t.ok(Either.isRight(decode(good)), `${good} is read`);
  }
  t.equal(Either.getOrThrow(decode("2026-11-28T16:00:00+01:00")).toISOString(), "2026-11-28T15:00:00.000Z", "the offset is applied");
  for (const bad of ["+275760-09-13T00:00:00.000Z", "-000001-01-01T00:00:00Z", "2026-11-28", "Nov 28 2026", "2026-13-01T00:00:00Z", "", "1732806000"]) {
    t.ok(Either.isLeft(decode(bad)), `${JSON.stringify(bad)} is refused`);
  }
});

t.test("an API key's expiry beyond year 9999 is 422 on expires_at, not a key that reads as expired", (t) =>
  forEachDialectConfig(t, "request time", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const owner = await createMerchantWithKey(server.core.runtime, { name: "Times", scopes: ["keys:write", "ledger:read"] });
    const issue = (expires_at: string) => call(`${server.url}/v1/api-keys`, { key: owner.api_key, body: { scopes: ["ledger:read"], expires_at } });
    t.match(await issue("+275760-09-13T00:00:00.000Z"), { status: 422, body: { code: "validation_failed", errors: [{ path: "expires_at" }] } });
    t.match(await issue("Dec 31 2099"), { status: 422, body: { errors: [{ path: "expires_at" }] } });
    const fine = await issue(new Date(Date.now() + 86_400_000).toISOString());
    t.equal(fine.status, 201, fine.text);
  }),
);
