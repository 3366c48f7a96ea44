/**
 * Contract kit for ApiKeys: an issued secret verifies to its key, merchant and scopes (kept as
 * issued), and no other secret does; the key is stored without its secret (its listed prefix
 * begins the secret but is not it); a revoked or expired key no longer verifies; revoke and
 * expire are conditional and scoped to the key's merchant (another merchant's key is not found);
 * expire never extends a key and answers false for one already expired; a merchant's keys are listed newest first, in keyset pages.
 */
import { Effect } from "effect";
import { ApiKeys } from "../../../ports/payments/ApiKeys.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedMerchant, uid } from "./fixtures.js";

/** The ports this kit needs (merchants are written through the PaymentsRepository). */
export type ApiKeysKitPorts = ApiKeys | PaymentsRepository;

const keys = <A>(f: (r: ApiKeys) => Effect.Effect<A>) => Effect.flatMap(ApiKeys, f);

/** Issues key `n` of merchant `merchantN` (written first) at `at(n)`. */
const issue = (merchantN: number, n: number, scopes: ReadonlyArray<string>, expiresAt?: Date) =>
  Effect.zipRight(
    seedMerchant(merchantN),
    keys((r) => r.issue({ keyId: uid("key", n), merchantId: uid("mer", merchantN), scopes, now: at(n), ...(expiresAt === undefined ? {} : { expiresAt }) })),
  );

/** The cases of the API keys kit. */
export const apiKeysCases: ReadonlyArray<KitCase<ApiKeysKitPorts>> = [
  {
    name: "api keys: an issued secret verifies to its key, merchant and scopes; no other secret does",
    run: async (t, run) => {
      const one = await run(issue(1, 1, ["payments:write", "ledger:read"]));
      const two = await run(issue(1, 2, ["refunds:write"]));
      t.equal(one.keyId, uid("key", 1));
      t.not(one.secret, two.secret, "each key has its own secret");
      t.same(await run(keys((r) => r.verify(one.secret, at(10)))), { keyId: uid("key", 1), merchantId: uid("mer", 1), scopes: ["payments:write", "ledger:read"] });
      t.same(await run(keys((r) => r.verify(two.secret, at(10)))), { keyId: uid("key", 2), merchantId: uid("mer", 1), scopes: ["refunds:write"] });
      const tampered = one.secret.slice(0, -1) + (one.secret.endsWith("A") ? "B" : "A");
      t.equal(await run(keys((r) => r.verify(tampered, at(10)))), null, "same prefix, different secret");
      t.equal(await run(keys((r) => r.verify("", at(10)))), null);
      t.equal(await run(keys((r) => r.verify(`${one.secret}x`, at(10)))), null);
    },
  },
  {
    name: "api keys: a key is kept without its secret: its prefix begins the secret, scopes and times as issued",
    run: async (t, run) => {
      const issued = await run(issue(1, 1, ["keys:write"], at(5_000)));
      const key = await run(keys((r) => r.find(uid("mer", 1), uid("key", 1))));
      t.equal(key?.id, uid("key", 1));
      t.equal(key?.merchantId, uid("mer", 1));
      t.ok(key !== null && key.prefix.length > 0 && key.prefix.length < issued.secret.length && issued.secret.startsWith(key.prefix), "a prefix, not the secret");
      t.notOk(JSON.stringify(key).includes(issued.secret), "the secret is not in the record");
      t.same(key?.scopes, ["keys:write"]);
      t.equal(key?.createdAt.getTime(), at(1).getTime());
      t.equal(key?.expiresAt?.getTime(), at(5_000).getTime());
      t.equal(key?.revokedAt, null);
      t.equal(await run(keys((r) => r.find(uid("mer", 2), uid("key", 1)))), null, "another merchant's key is not found");
      t.equal(await run(keys((r) => r.find(uid("mer", 1), uid("key", 9)))), null);
    },
  },
  {
    name: "api keys: a revoked key no longer verifies; revoke is once, and only by the key's merchant",
    run: async (t, run) => {
      const issued = await run(issue(1, 1, ["payments:write"]));
      await run(seedMerchant(2));
      t.equal(await run(keys((r) => r.revoke({ merchantId: uid("mer", 2), keyId: uid("key", 1), now: at(10) }))), false, "another merchant cannot revoke it");
      t.ok((await run(keys((r) => r.verify(issued.secret, at(11))))) !== null, "still live");
      t.equal(await run(keys((r) => r.revoke({ merchantId: uid("mer", 1), keyId: uid("key", 1), now: at(20) }))), true);
      t.equal(await run(keys((r) => r.verify(issued.secret, at(21)))), null, "revoked: not found");
      t.equal((await run(keys((r) => r.find(uid("mer", 1), uid("key", 1)))))?.revokedAt?.getTime(), at(20).getTime(), "still listed, revoked");
      t.equal(await run(keys((r) => r.revoke({ merchantId: uid("mer", 1), keyId: uid("key", 1), now: at(30) }))), false, "already revoked");
      t.equal((await run(keys((r) => r.find(uid("mer", 1), uid("key", 1)))))?.revokedAt?.getTime(), at(20).getTime(), "the first revocation stands");
    },
  },
  {
    name: "api keys: an expired key no longer verifies; expire only moves an expiry earlier, and only for a live key of the merchant",
    run: async (t, run) => {
      const a = await run(issue(1, 1, ["payments:write"], at(1_000)));
      const b = await run(issue(1, 2, ["payments:write"]));
      t.ok((await run(keys((r) => r.verify(a.secret, at(999))))) !== null, "live before its expiry");
      t.equal(await run(keys((r) => r.verify(a.secret, at(1_000)))), null, "not live at its expiry");
      t.equal(await run(keys((r) => r.expire({ merchantId: uid("mer", 1), keyId: uid("key", 1), at: at(2_000), now: at(10) }))), false, "never extended");
      t.equal((await run(keys((r) => r.find(uid("mer", 1), uid("key", 1)))))?.expiresAt?.getTime(), at(1_000).getTime());
      t.equal(await run(keys((r) => r.expire({ merchantId: uid("mer", 2), keyId: uid("key", 2), at: at(500), now: at(10) }))), false, "another merchant's key");
      t.equal(await run(keys((r) => r.expire({ merchantId: uid("mer", 1), keyId: uid("key", 2), at: at(500), now: at(10) }))), true);
      t.ok((await run(keys((r) => r.verify(b.secret, at(499))))) !== null);
      t.equal(await run(keys((r) => r.verify(b.secret, at(500)))), null, "expired by expire");
      await run(keys((r) => r.revoke({ merchantId: uid("mer", 1), keyId: uid("key", 2), now: at(100) })));
      t.equal(await run(keys((r) => r.expire({ merchantId: uid("mer", 1), keyId: uid("key", 2), at: at(50), now: at(10) }))), false, "a revoked key is not live");
    },
  },
  {
    name: "api keys: expire tells an already-expired key apart: it is not live, so the answer is false and its expiry stands",
    run: async (t, run) => {
      await run(issue(1, 1, ["payments:write"], at(1_000)));
      const expire = (when: number, now: number) => run(keys((r) => r.expire({ merchantId: uid("mer", 1), keyId: uid("key", 1), at: at(when), now: at(now) })));
      t.equal(await expire(500, 1_500), false, "expired before now: not live");
      t.equal(await expire(500, 1_000), false, "expiring exactly now: not live any more");
      t.equal((await run(keys((r) => r.find(uid("mer", 1), uid("key", 1)))))?.expiresAt?.getTime(), at(1_000).getTime(), "the expiry it had stands");
      t.equal(await expire(500, 999), true, "live just before its expiry: moved earlier");
      t.equal((await run(keys((r) => r.find(uid("mer", 1), uid("key", 1)))))?.expiresAt?.getTime(), at(500).getTime());
    },
  },
  {
    name: "api keys: a merchant's keys (live, expired and revoked) are listed newest first, its own only",
    run: async (t, run) => {
      await run(issue(1, 1, ["payments:write"], T0));
      await run(issue(2, 2, ["payments:write"]));
      await run(issue(1, 3, ["ledger:read"]));
      await run(issue(1, 4, ["refunds:write"]));
      await run(keys((r) => r.revoke({ merchantId: uid("mer", 1), keyId: uid("key", 3), now: at(10) })));
      const list = (merchant: number, limit: number, before?: string) =>
        run(keys((r) => r.list({ merchantId: uid("mer", merchant), limit, ...(before === undefined ? {} : { before }) }))).then((found) => found.map((k) => k.id));
      t.same(await list(1, 10), [uid("key", 4), uid("key", 3), uid("key", 1)]);
      t.same(await list(2, 10), [uid("key", 2)]);
      t.same(await list(9, 10), []);
      t.same(await list(1, 2), [uid("key", 4), uid("key", 3)], "at most `limit`");
      t.same(await list(1, 10, uid("key", 3)), [uid("key", 1)], "strictly before `before`");
      t.same(await list(1, 10, uid("key", 1)), [], "nothing before the oldest");
    },
  },
];

/** Runs the API keys kit. */
export const apiKeysSuite = (options: SuiteOptions<ApiKeysKitPorts>): Promise<unknown> => runCases(options, apiKeysCases);
