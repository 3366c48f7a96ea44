/**
 * Risk analysts (spec, Payment service, Authentication 2: "Risk analyst: risk signals and holds,
 * with no secret or raw instrument access"; Rules: "Every mutation has durable idempotency and
 * state preconditions"; "Commands ... overrides ... are immutable and audited"). A key with
 * `risk:write` holds a merchant's intent: confirm and capture answer 409 `intent_on_hold` until it
 * is released; `risk:read` lists holds and reads an intent's risk signals, which carry no secret,
 * token or provider id. Another merchant's intent is 404. The database keeps one active hold per
 * intent, never edits or deletes a hold except to release it once, and stores no provider
 * attempt while the intent is held. Over the reference server, on SQLite and Postgres.
 */
import { sql } from "kysely";
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import type { TapTest } from "../support/databases.js";
import { call, freshKey } from "./support.js";

const ownerScopes = ["payments:write", "refunds:write", "ledger:read", "keys:write", "risk:read", "risk:write"];

/** A server with the payment module, a merchant's owner key, its analyst key and another merchant's full key. */
const setUp = async (t: TapTest, config: Parameters<typeof startReferenceServer>[1]) => {
  const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
  const owner = await createMerchantWithKey(server.core.runtime, { name: "Risky shop", scopes: ownerScopes });
  const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes: ownerScopes });
  const issued = await call(`${server.url}/v1/api-keys`, { key: owner.api_key, body: { scopes: ["risk:read", "risk:write"] } });
  if (issued.status !== 201) throw new Error(`analyst key: ${issued.text}`);
  const analyst = issued.body.api_key as string;
  const url = (path: string) => `${server.url}${path}`;
  const newIntent = async (captureMethod: "automatic" | "manual" = "manual") => {
    const created = await call(url("/v1/payment-intents"), { key: owner.api_key, idempotencyKey: freshKey(), body: { amount_minor: 5000, currency: "EUR", capture_method: captureMethod } });
    if (created.status !== 201) throw new Error(`intent: ${created.text}`);
    return created.body.id as string;
  };
  const hold = (id: string, key = analyst, reason = "velocity from one card") => call(url(`/v1/payment-intents/${id}/hold`), { key, idempotencyKey: freshKey(), body: { reason } });
  const release = (id: string, key = analyst, reason = "customer verified by phone") =>
    call(url(`/v1/payment-intents/${id}/hold/release`), { key, idempotencyKey: freshKey(), body: { reason } });
  const confirm = (id: string, paymentMethod: string = sandboxTokens.visa) =>
    call(url(`/v1/payment-intents/${id}/confirm`), { key: owner.api_key, idempotencyKey: freshKey(), body: { payment_method: paymentMethod } });
  const capture = (id: string) => call(url(`/v1/payment-intents/${id}/capture`), { key: owner.api_key, idempotencyKey: freshKey(), body: {} });
  const risk = (id: string, key = analyst) => call(url(`/v1/payment-intents/${id}/risk`), { key });
  return { server, logText, owner, other, analyst, url, newIntent, hold, release, confirm, capture, risk };
};

t.test("a held intent is neither confirmed nor captured until its hold is released; each step is audited", (t) =>
  forEachDialectConfig(t, "holds stop money", async (t, config) => {
    const s = await setUp(t, config);
    const id = await s.newIntent("manual");
    const held = await s.hold(id);
    t.equal(held.status, 201, held.text);
    t.match(held.body, { object: "risk_hold", intent_id: id, reason: "velocity from one card", released_at: null });
    t.notOk("merchant_id" in held.body, "a hold view names no merchant");
    t.match(await s.hold(id), { status: 409, body: { code: "intent_already_on_hold" } }, "one active hold per intent");
    t.match(await s.confirm(id), { status: 409, body: { code: "intent_on_hold" } }, "confirm is refused while held");
    t.equal((await s.risk(id)).body.signals && ((await s.risk(id)).body.signals as { attempts: number }).attempts, 0, "no provider attempt was made");
    const released = await s.release(id);
    t.equal(released.status, 200, released.text);
    t.match(released.body, { release_reason: "customer verified by phone" });
    t.ok(typeof released.body.released_at === "string" && typeof released.body.released_by === "string");
    t.match(await s.release(id), { status: 409, body: { code: "intent_not_on_hold" } }, "nothing left to release");
    t.match(await s.confirm(id), { status: 200, body: { status: "requires_capture" } }, "released: confirm authorizes");
    t.equal((await s.hold(id)).status, 201, "an authorized intent can be held again");
    t.match(await s.capture(id), { status: 409, body: { code: "intent_on_hold" } }, "capture is refused while held");
    t.equal((await s.release(id)).status, 200);
    t.match(await s.capture(id), { status: 200, body: { status: "succeeded" } }, "released: capture goes through");
    t.match(await s.hold(id), { status: 409, body: { code: "intent_not_holdable" } }, "a succeeded intent moves no more money by confirm or capture");

    const { db } = s.server.core.database;
    const actions = await db.selectFrom("payment_audit_log").select(["action", "reason"]).where("subject_id", "=", id).where("action", "like", "payment_intent.h%").orderBy("created_at").orderBy("id").execute();
    t.same(
      actions.map((a) => a.action),
      ["payment_intent.held", "payment_intent.hold_released", "payment_intent.held", "payment_intent.hold_released"],
      "every hold and release is in the audit log",
    );
    t.same(actions.map((a) => a.reason), ["velocity from one card", "customer verified by phone", "velocity from one card", "customer verified by phone"]);
  }),
);

t.test("risk scopes: analysts hold and read risk but move no money and see no secret; other merchants' intents are 404", (t) =>
  forEachDialectConfig(t, "risk scopes", async (t, config) => {
    const s = await setUp(t, config);
    const id = await s.newIntent("automatic");
    t.match(
      await call(s.url("/v1/payment-intents"), { key: s.analyst, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } }),
      { status: 403 },
      "an analyst key creates no intent",
    );
    t.match(
      await call(s.url(`/v1/payment-intents/${id}/confirm`), { key: s.analyst, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } }),
      { status: 403 },
      "nor confirms one",
    );
    t.match(
      await call(s.url(`/v1/payment-intents/${id}/cancel`), { key: s.analyst, idempotencyKey: freshKey(), body: {} }),
      { status: 403 },
      "nor cancels one",
    );
    const noRisk = await call(s.url("/v1/api-keys"), { key: s.owner.api_key, body: { scopes: ["payments:write"] } });
    const payer = noRisk.body.api_key as string;
    t.match(await s.hold(id, payer), { status: 403 }, "holding needs risk:write");
    t.match(await s.risk(id, payer), { status: 403 }, "risk signals need risk:read");
    t.match(await call(s.url("/v1/risk/holds"), { key: payer }), { status: 403 }, "listing holds needs risk:read");

    t.match(await s.hold(id, s.other.api_key), { status: 404, body: { code: "not_found" } }, "another merchant's intent is 404 to hold");
    t.match(await s.release(id, s.other.api_key), { status: 404 }, "and to release");
    t.match(await s.risk(id, s.other.api_key), { status: 404 }, "and to read its risk");
    t.match(await s.hold("pi_unknown"), { status: 404 }, "an unknown intent is 404");
    t.match(await call(s.url(`/v1/payment-intents/${id}/hold`), { key: s.analyst, idempotencyKey: freshKey(), body: { reason: "" } }), { status: 422 }, "a reason is required");
    t.match(await call(s.url(`/v1/payment-intents/${id}/hold`), { key: s.analyst, body: { reason: "x" } }), { status: 400 }, "an Idempotency-Key is required");

    t.match(await s.confirm(id, sandboxTokens.declined), { status: 402 });
    const risk = await s.risk(id);
    t.equal(risk.status, 200, risk.text);
    t.match(risk.body, {
      object: "payment_intent_risk",
      intent_id: id,
      status: "requires_payment_method",
      last_decline_code: "card_declined",
      signals: { attempts: 1, declined_attempts: 1, unknown_outcomes: 0, decline_codes: ["card_declined"], disputes: 0, lost_disputes: 0, refunds: 0 },
      active_hold: null,
    });
    t.notMatch(risk.text, /pm_card|client_secret|secret|provider_payment_id/, "no token, secret or provider id in the risk view");
    t.equal((await s.hold(id)).status, 201);
    t.match((await s.risk(id)).body, { active_hold: { object: "risk_hold", intent_id: id } }, "the active hold is part of the risk view");
    t.notMatch(s.logText(), new RegExp(s.analyst), "the analyst's key is never logged");
  }),
);

t.test("holds are listed newest first in keyset pages, the merchant's own only, all or active", (t) =>
  forEachDialectConfig(t, "hold lists", async (t, config) => {
    const s = await setUp(t, config);
    const ids = [await s.newIntent(), await s.newIntent(), await s.newIntent()];
    const holdIds: string[] = [];
    for (const id of ids) holdIds.push((await s.hold(id)).body.id as string);
    await s.release(ids[1]!);
    const otherIntent = await call(s.url("/v1/payment-intents"), { key: s.other.api_key, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } });
    await s.hold(otherIntent.body.id as string, s.other.api_key);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(s.url(`/v1/risk/holds?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`), { key: s.analyst });
      t.equal(page.status, 200, page.text);
      seen.push(...(page.body.data as Array<{ id: string }>).map((h) => h.id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor !== null);
    t.same(seen, [...holdIds].reverse(), "every hold of the merchant once, newest first, none of another merchant's");
    const active = await call(s.url("/v1/risk/holds?status=active"), { key: s.analyst });
    t.same((active.body.data as Array<{ id: string }>).map((h) => h.id), [holdIds[2], holdIds[0]], "status=active: the released hold is left out");
    t.match(await call(s.url("/v1/risk/holds?status=open"), { key: s.analyst }), { status: 400 }, "an unknown status is refused");
    t.match(await call(s.url("/v1/risk/holds?cursor=nope"), { key: s.analyst }), { status: 400, body: { code: "invalid_cursor" } });
  }),
);

t.test("the database keeps holds: one active per intent, released once, never edited or deleted, no attempt while held", (t) =>
  forEachDialectConfig(t, "hold rows", async (t, config) => {
    const s = await setUp(t, config);
    const id = await s.newIntent();
    const holdId = (await s.hold(id)).body.id as string;
    const { db } = s.server.core.database;
    const row = await db.selectFrom("payment_risk_holds").selectAll().where("id", "=", holdId).executeTakeFirstOrThrow();
    await t.rejects(db.insertInto("payment_risk_holds").values({ ...row, id: `${holdId}-2` }).execute(), "a second active hold of the intent is refused");
    await t.rejects(db.updateTable("payment_risk_holds").set({ reason: "rewritten" }).where("id", "=", holdId).execute(), "the reason is never edited");
    await t.rejects(db.updateTable("payment_risk_holds").set({ released_at: row.placed_at }).where("id", "=", holdId).execute(), "a release sets all three release fields");
    await t.rejects(db.deleteFrom("payment_risk_holds").where("id", "=", holdId).execute(), "a hold is never deleted");
    const attempt = {
      id: `att-${holdId}`,
      intent_id: id,
      merchant_id: row.merchant_id,
      number: 1,
      reference: `${id}_attempt_1`,
      payment_method: sandboxTokens.visa,
      status: "pending",
      created_at: row.placed_at,
      updated_at: row.placed_at,
    };
    await t.rejects(db.insertInto("payment_attempts").values(attempt).execute(), "no provider attempt is stored while the intent is held");
    t.equal((await s.release(id)).status, 200);
    await t.rejects(
      db.updateTable("payment_risk_holds").set({ release_reason: "changed later" }).where("id", "=", holdId).execute(),
      "a released hold is never edited",
    );
    await db.insertInto("payment_attempts").values(attempt).execute();
    t.pass("released: an attempt is stored");
    const otherIntent = (await call(s.url("/v1/payment-intents"), { key: s.other.api_key, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } })).body.id as string;
    await t.rejects(
      db.insertInto("payment_risk_holds").values({ ...row, id: `${holdId}-x`, intent_id: otherIntent, released_at: null, released_by: null, release_reason: null }).execute(),
      "a hold cannot name another merchant's intent",
    );
    t.equal(Number((await sql<{ n: number }>`SELECT count(*) AS n FROM payment_risk_holds`.execute(db)).rows[0]?.n), 1);
  }),
);

t.test("a hold raced against a confirm: no provider attempt starts while a hold is active (parallel connections on Postgres)", (t) =>
  forEachDialectConfig(t, "hold against confirm", async (t, config) => {
    const s = await setUp(t, config);
    const { db } = s.server.core.database;
    const outcomes = new Set<string>();
    for (let round = 0; round < 12; round += 1) {
      const id = await s.newIntent("automatic");
      // Sent in both orders, so either may reach the intent's lock first.
      const [held, confirmed] =
        round % 2 === 0 ? await Promise.all([s.hold(id), s.confirm(id)]) : await Promise.all([s.confirm(id), s.hold(id)]).then(([c, h]) => [h, c] as const);
      const attempts = await db.selectFrom("payment_attempts").select(["created_at"]).where("intent_id", "=", id).execute();
      const holds = await db.selectFrom("payment_risk_holds").select(["placed_at"]).where("intent_id", "=", id).execute();
      if (held.status === 201 && confirmed.status === 409) {
        outcomes.add("hold first");
        t.match(confirmed.body, { code: "intent_on_hold" }, `round ${round}: held first, the confirm was refused`);
        t.equal(attempts.length, 0, `round ${round}: no attempt reached the provider`);
      } else if (held.status === 201) {
        // The confirm's attempt committed first and its provider call was in flight: the hold stops what starts after it.
        outcomes.add("confirm in flight");
        t.equal(confirmed.status, 200, `round ${round}: the confirm started before the hold went through`);
        t.equal(attempts.length, 1);
        t.ok(new Date(attempts[0]!.created_at as string).getTime() <= new Date(holds[0]!.placed_at as string).getTime(), `round ${round}: the attempt started before the hold`);
      } else {
        outcomes.add("confirm first");
        t.match(held, { status: 409, body: { code: "intent_not_holdable" } }, `round ${round}: the confirm finished first, the hold was refused`);
        t.equal(confirmed.status, 200);
        t.equal(holds.length, 0);
      }
    }
    t.comment(`outcomes seen: ${[...outcomes].join(", ")}`);
  }),
);
