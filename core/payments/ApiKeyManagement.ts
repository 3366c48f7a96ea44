/**
 * Merchants managing their own API keys over HTTP: issue (secret shown once), list (never a
 * secret or hash), revoke, and rotate with overlap (a new key with the same scopes; the old one
 * keeps working until the overlap ends). Only a key holding `keys:write` may call these, and it
 * can never hand out a scope it does not hold itself, nor rotate or revoke a key holding one, so a
 * key cannot escalate or stop a broader key.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed, type InvalidCursor } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import type { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import type { ApiKey } from "./model/ApiKey.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { actorOf, requireMerchant, type MerchantCaller } from "./MerchantAccess.js";
import { issueMerchantKey, revokeMerchantKey } from "./Merchants.js";
import { withSpan } from "../kernel/Span.js";
import type { ApiKeyId } from "./model/Ids.js";

/** The scope that lets a key manage the merchant's keys. */
export const keysWriteScope = "keys:write";
/** The scope that lets a key manage the merchant's webhook endpoints and read their deliveries. */
export const webhooksWriteScope = "webhooks:write";
/** The longest overlap a rotation may keep the old key alive (7 days). */
export const maxRotationOverlapSeconds = 7 * 24 * 3600;

/** The caller as a merchant holding `scope`; Forbidden otherwise. */
export const requireMerchantScope = (principal: Principal, scope: string): Effect.Effect<MerchantCaller, Forbidden> =>
  Effect.flatMap(requireMerchant(principal), (caller) =>
    caller.scopes.includes(scope) ? Effect.succeed(caller) : Effect.fail(new Forbidden({ detail: `This API key lacks the ${scope} scope.` })),
  );

/** Forbidden unless the caller holds every one of `scopes` (what it would grant, or the scopes of the key it would revoke). */
const noEscalation = (caller: MerchantCaller, scopes: ReadonlyArray<string>, refused = "A key cannot grant scopes it does not hold"): Effect.Effect<void, Forbidden> => {
  const beyond = scopes.filter((scope) => !caller.scopes.includes(scope));
  return beyond.length === 0 ? Effect.void : Effect.fail(new Forbidden({ detail: `${refused}: ${beyond.join(", ")}.` }));
};

const liveKeyOf = (caller: MerchantCaller, keyId: string, at: Date): Effect.Effect<ApiKey, NotFound, ApiKeys> =>
  Effect.flatMap(ApiKeys, (keys) => keys.find(caller.merchantId, keyId)).pipe(
    Effect.flatMap((key) =>
      key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > at.getTime())
        ? Effect.succeed(key)
        : Effect.fail(new NotFound({ resource: "api_key", detail: "No such live API key." })),
    ),
  );

/** Issues another key of the caller's merchant with `scopes` (a subset of the caller's). */
export const issueKey = (
  principal: Principal,
  input: { readonly scopes: ReadonlyArray<string>; readonly expiresAt?: Date },
): Effect.Effect<{ readonly key: ApiKey; readonly apiKey: string }, Forbidden | ValidationFailed | NotFound, PaymentsRepository | ApiKeys | Transactions | Ids> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, keysWriteScope);
    if (input.scopes.length === 0) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "scopes", message: "must name at least one scope" }] }));
    }
    yield* noEscalation(caller, input.scopes);
    if (input.expiresAt !== undefined && input.expiresAt.getTime() <= (yield* now).getTime()) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "expires_at", message: "must be in the future" }] }));
    }
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const issued = yield* issueMerchantKey({
          merchantId: caller.merchantId,
          scopes: input.scopes,
          actor: actorOf(caller),
          ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
        });
        const key = yield* (yield* ApiKeys).find(caller.merchantId, issued.keyId);
        if (key === null) return yield* Effect.dieMessage("an issued key vanished");
        return { key, apiKey: issued.apiKey };
      }),
    );
  }).pipe(withSpan("Payments.issueKey"));

/** The caller's merchant's keys, newest first, live and revoked (never a secret or hash), as keyset pages. */
export const listKeys = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<ApiKey>, Forbidden | InvalidCursor, ApiKeys> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, keysWriteScope);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* ApiKeys).list({ merchantId: caller.merchantId, ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listKeys"));

/**
 * Revokes a key of the caller's merchant at once (another merchant's key is 404). As with
 * rotation, only a key whose scopes the caller holds (security audit S7): a narrow key cannot
 * stop the merchant's broader ones.
 */
export const revokeKey = (
  principal: Principal,
  keyId: ApiKeyId,
  reason: string,
): Effect.Effect<void, Forbidden | NotFound, PaymentsRepository | ApiKeys | Transactions | Ids> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, keysWriteScope);
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const target = yield* (yield* ApiKeys).find(caller.merchantId, keyId);
        // An unknown or revoked key is answered 404 by the revocation itself.
        if (target !== null) yield* noEscalation(caller, target.scopes, "A key cannot revoke a key holding scopes it does not hold");
        yield* revokeMerchantKey({ merchantId: caller.merchantId, keyId, actor: actorOf(caller), reason });
      }),
    );
  }).pipe(withSpan("Payments.revokeKey"));

/**
 * Rotates a key with overlap: issues a new key with the same scopes and makes the old one
 * expire `overlapSeconds` from now (0 ends it at once), so clients move without downtime.
 */
export const rotateKey = (
  principal: Principal,
  keyId: ApiKeyId,
  overlapSeconds: number,
): Effect.Effect<
  { readonly key: ApiKey; readonly apiKey: string; readonly previous: ApiKey },
  Forbidden | ValidationFailed | NotFound,
  PaymentsRepository | ApiKeys | Transactions | Ids
> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchantScope(principal, keysWriteScope);
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > maxRotationOverlapSeconds) {
      return yield* Effect.fail(
        new ValidationFailed({ errors: [{ path: "overlap_seconds", message: `must be an integer from 0 to ${maxRotationOverlapSeconds}` }] }),
      );
    }
    const keys = yield* ApiKeys;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const old = yield* liveKeyOf(caller, keyId, at);
        yield* noEscalation(caller, old.scopes);
        const issued = yield* issueMerchantKey({ merchantId: caller.merchantId, scopes: old.scopes, actor: actorOf(caller) });
        const endsAt = new Date(at.getTime() + overlapSeconds * 1000);
        yield* keys.expire({ merchantId: caller.merchantId, keyId, at: endsAt, now: at });
        yield* audit({
          merchantId: caller.merchantId,
          actor: actorOf(caller),
          action: "api_key.rotated",
          subjectType: "api_key",
          subjectId: keyId,
          reason: "key rotation",
          data: { new_key_id: issued.keyId, old_key_expires_at: endsAt.toISOString() },
        });
        const key = yield* keys.find(caller.merchantId, issued.keyId);
        const previous = yield* keys.find(caller.merchantId, keyId);
        if (key === null || previous === null) return yield* Effect.dieMessage("a rotated key vanished");
        return { key, apiKey: issued.apiKey, previous };
      }),
    );
  }).pipe(withSpan("Payments.rotateKey"));
