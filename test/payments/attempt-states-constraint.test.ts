/**
 * Spec, Payment service: a PaymentAttempt "records one provider interaction"; commands and
 * webhooks are "immutable and audited"; ambiguous outcomes are "never guessed". The database keeps
 * an attempt's record whoever writes (payments migration 26): its status moves only from what the
 * provider has not settled (pending, unknown, requires_action; an authorization to its capture),
 * captured and declined are final, what it records never changes, and it is never deleted —
 * SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { AttemptStatus } from "../../core/payments/model/PaymentAttempt.js";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";

const at = new Date().toISOString();

/** What the commands, the sweep and the webhook inbox do to an attempt (ConfirmIntent.ts, UnrecordedAnswers.ts, ProviderEventProcessing.ts). */
const allowed = new Set([
  ...["unknown", "authorized", "captured", "requires_action", "declined"].map((to) => `pending->${to}`),
  ...["authorized", "captured", "requires_action", "declined"].map((to) => `unknown->${to}`),
  ...["authorized", "captured", "declined"].map((to) => `requires_action->${to}`),
  "authorized->captured",
]);

const attemptRow = (id: string, number: number, status: string) => ({
  id,
  intent_id: "intent-1",
  merchant_id: "merchant-a",
  number,
  reference: `pi_intent-1_attempt_${number}`,
  payment_method: "pm_card_visa",
  status,
  provider_payment_id: null,
  decline_code: null,
  created_at: at,
  updated_at: at,
});

const setUp = async (db: Kysely<any>) => {
  await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
  await db.insertInto("payment_intents").values(intentRow("intent-1", { status: "processing", amount_captured_minor: 0, attempt_count: 0 })).execute();
};

t.test("an attempt's status moves only from what the provider has not settled, and captured and declined are final", (t) =>
  forEachDialect(t, "attempt transitions", async (t, database) => {
    const db = database.db as Kysely<any>;
    await setUp(db);
    let n = 0;
    for (const from of AttemptStatus.literals) {
      for (const to of AttemptStatus.literals) {
        if (from === to) continue;
        const id = `attempt-${++n}`;
        await db.insertInto("payment_attempts").values(attemptRow(id, n, from)).execute();
        const move = db.updateTable("payment_attempts").set({ status: to }).where("id", "=", id).execute();
        if (allowed.has(`${from}->${to}`)) await t.resolves(move, `${from} -> ${to} is allowed`);
        else await t.rejects(move, `${from} -> ${to} is refused`);
      }
    }
    t.equal(allowed.size, 13);
  }),
);

t.test("what an attempt records never changes, and an attempt is never deleted", (t) =>
  forEachDialect(t, "attempt record fixed", async (t, database) => {
    const db = database.db as Kysely<any>;
    await setUp(db);
    await db.insertInto("payment_attempts").values(attemptRow("attempt-1", 1, "pending")).execute();
    for (const [column, value] of [
      ["number", 2],
      ["reference", "pi_intent-1_attempt_9"],
      ["payment_method", "pm_card_other"],
      ["merchant_id", "merchant-b"],
    ] as const) {
      await t.rejects(db.updateTable("payment_attempts").set({ [column]: value }).where("id", "=", "attempt-1").execute(), `${column} never changes`);
    }
    await t.rejects(db.deleteFrom("payment_attempts").where("id", "=", "attempt-1").execute(), "an attempt is never deleted");
    await db.updateTable("payment_attempts").set({ status: "authorized", provider_payment_id: "sbx_pay_1", updated_at: at }).where("id", "=", "attempt-1").execute();
    const row = await db.selectFrom("payment_attempts").select(["status", "provider_payment_id", "reference"]).where("id", "=", "attempt-1").executeTakeFirstOrThrow();
    t.same(row, { status: "authorized", provider_payment_id: "sbx_pay_1", reference: "pi_intent-1_attempt_1" }, "an answer is recorded as the commands record it");
  }),
);
