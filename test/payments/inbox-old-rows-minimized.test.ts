/**
 * Spec, Payment service: card data and personal details are never stored. Inbox rows stored before
 * the inbox kept only what the core reads hold the provider's whole body (the old code stored the
 * parsed body). An operator minimizes them once through the configured provider adapter's decoder
 * (core/payments/MinimizeStoredProviderEvents.ts), never by SQL that assumes one wire shape: each
 * becomes exactly what today's code stores for the same event; a payload the decoder cannot read is
 * left whole, counted, and does not stop the rows after it; the database allows that one rewrite
 * only (payments migration 32) and still refuses DELETE. SQLite and Postgres.
 */
import t from "tap";
import { Effect, ManagedRuntime } from "effect";
import { sql, type Kysely } from "kysely";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { sandboxWebhookBody, signWebhook } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { paymentsMigrations } from "../../adapters/sql/payments/migrations/index.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { minimizeProviderEventInbox, minimizeStoredProviderEvents } from "../../core/payments/MinimizeStoredProviderEvents.js";
import { receiveProviderWebhook } from "../../core/payments/ProviderEventProcessing.js";
import { ProviderHealthReads } from "../../ports/payments/ProviderHealth.js";
import { dialects, openTestDatabase, type TapTest } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { sandboxPaymentsModule, type PaymentServices } from "./support.js";

const secret = "whsec_old_inbox_rows_secret";
const personal = { name: "Ada Customer", email: "ada@example.com", address: { line1: "1 Private Road", postal_code: "12345" } };
const created = Math.floor(Date.now() / 1000) - 60;
const personalText = /Ada Customer|ada@example\.com|Private Road|12345|198\.51\.100\.7/;

// Provider bodies as the sandbox sends them; the old code stored each one whole as the row's payload.
const bodies: Record<string, Record<string, unknown>> = {
  payment: {
    type: "payment.captured",
    created,
    data: { object: "payment", reference: "pi_old_attempt_1", provider_payment_id: "sbx_pay_old", status: "captured", amount_minor: 1000, captured_minor: 1000, currency: "EUR", decline_code: null, billing_details: personal },
    request: { ip: "198.51.100.7" },
  },
  refund: {
    type: "refund.succeeded",
    created,
    data: { object: "refund", reference: "re_old_1", status: "succeeded", amount_minor: 400, currency: "EUR", failure_reason: null, customer: personal },
  },
  dispute: {
    type: "dispute.created",
    created,
    data: { object: { id: "dp_old", payment: "sbx_pay_old", amount_minor: 1000, currency: "EUR", reason: "fraudulent", status: "needs_response", evidence: { customer: personal } } },
  },
  other: { type: "customer.updated", created, data: { object: "customer", ...personal } },
};
// Not a sandbox event (its payment has no reference): the decoder cannot read it.
const undecodableBody = { id: "evt_old_unreadable", type: "payment.captured", created, data: { object: "payment", amount: "ten", holder: personal } };

// Stored between the seventeenth session and migration 32: already what the core reads, not yet marked.
const minimalPayload = {
  type: "refund.failed",
  data: { kind: "refund", status: "failed", reference: "re_old_2", amountMinor: 300, currency: "EUR", failureReason: "insufficient_funds" },
};

// Ids in this order: the unreadable row comes second, so later batches follow it.
const oldRows = [
  { id: "old-1", kind: "payment" },
  { id: "old-2", kind: "unreadable" },
  { id: "old-3", kind: "refund" },
  { id: "old-4", kind: "dispute" },
  { id: "old-5", kind: "other" },
  { id: "old-6", kind: "minimal" },
] as const;

const bodyOf = (kind: (typeof oldRows)[number]["kind"], eventId: string): Record<string, unknown> =>
  kind === "unreadable" ? undecodableBody : kind === "minimal" ? minimalPayload : { id: eventId, ...bodies[kind] };

const receivedAt = new Date(created * 1000);

/** A database migrated up to payments migration 31, holding old rows, then migrated to today. */
const oldInbox = async (t: TapTest, dialect: (typeof dialects)[number]): Promise<SqlDatabase> => {
  const before = paymentsMigrations.filter((m) => m.version < 32);
  const database = await openTestDatabase(dialect, t, [{ name: "payments", migrations: before }]);
  const db = database.db as Kysely<any>;
  for (const row of oldRows) {
    const eventId = `evt_old_${row.id}`;
    await db
      .insertInto("payment_provider_events")
      .values({
        id: row.id,
        provider_event_id: eventId,
        type: String(bodyOf(row.kind, eventId).type),
        payload: JSON.stringify(bodyOf(row.kind, eventId)),
        status: "ignored",
        outcome: "unknown_reference",
        merchant_id: null,
        provider_object: null,
        occurred_at: dialect === "sqlite" ? receivedAt.toISOString() : receivedAt,
        received_at: dialect === "sqlite" ? receivedAt.toISOString() : receivedAt,
        processed_at: dialect === "sqlite" ? receivedAt.toISOString() : receivedAt,
      })
      .execute();
  }
  await migrate(database, [{ name: "payments", migrations: paymentsMigrations }]);
  return database;
};

const runtimeOver = (t: TapTest, database: SqlDatabase) => {
  const runtime = ManagedRuntime.make(moduleLayer(database, [sandboxPaymentsModule(makeSandboxProvider(), [secret])]));
  t.teardown(() => runtime.dispose());
  return <A, E>(effect: Effect.Effect<A, E, PaymentServices>): Promise<A> => runtime.runPromise(effect);
};

const deliver = (body: Record<string, unknown>) => {
  const rawBody = sandboxWebhookBody(body as never);
  return receiveProviderWebhook({ rawBody, signatureHeader: signWebhook(secret, rawBody, Date.now() / 1000) });
};

// The database's own refusal (payments migration 32; DELETE: the append-only trigger).
const refused = { message: /append-only/ };

const parsed = (payload: unknown): unknown => (typeof payload === "string" ? JSON.parse(payload) : payload);

const inboxRows = async (database: SqlDatabase) =>
  (await (database.db as Kysely<any>).selectFrom("payment_provider_events").select(["id", "provider_event_id", "payload", "payload_minimized_at"]).orderBy("id").execute()).map(
    (r) => ({ id: String(r.id), eventId: String(r.provider_event_id), payload: parsed(r.payload), marked: r.payload_minimized_at !== null }),
  );

for (const dialect of dialects) {
  t.test(`old inbox rows are minimized once to what today's code stores, through the provider's decoder [${dialect}]`, async (t) => {
    const database = await oldInbox(t, dialect);
    const run = runtimeOver(t, database);

    // Today's code stores a twin of each readable event (another event id, the same body).
    for (const row of oldRows) if (row.kind !== "unreadable" && row.kind !== "minimal") await run(deliver({ id: `evt_twin_${row.id}`, ...bodies[row.kind] }));
    const beforeRun = await inboxRows(database);
    const todays = new Map(beforeRun.filter((r) => r.eventId.startsWith("evt_twin_")).map((r) => [r.eventId.slice("evt_twin_".length), r]));
    t.equal(todays.size, 4);
    t.ok([...todays.values()].every((r) => r.marked), "rows stored by today's code are marked minimized on insert");
    t.same(beforeRun.filter((r) => !r.marked).map((r) => r.id), oldRows.map((r) => r.id), "only the old rows are unmarked");

    // Batches of two: the unreadable row sits in the first and does not stop the others.
    const first = await run(minimizeStoredProviderEvents({ batch: 2 }));
    t.same(first, { minimized: 1, undecodable: 1, remaining: 4, after: "old-2" }, "first batch: one minimized, one left whole");
    const rest = await run(minimizeProviderEventInbox({ batch: 2 }));
    t.same(rest, { minimized: 4, undecodable: 1, remaining: 1 }, "the rest are minimized; the unreadable row stays, counted again");

    const after = new Map((await inboxRows(database)).map((r) => [r.id, r]));
    for (const row of oldRows) {
      const stored = after.get(row.id)!;
      if (row.kind === "unreadable") {
        t.same(stored.payload, undecodableBody, "an unreadable row is left whole");
        t.notOk(stored.marked, "and unmarked");
        continue;
      }
      if (row.kind === "minimal") {
        t.same(stored.payload, minimalPayload, "a payload already in the stored shape is kept as it is");
        t.ok(stored.marked, "and marked");
        continue;
      }
      t.same(stored.payload, todays.get(row.id)!.payload, `${row.kind}: exactly what today's code stores for the same event`);
      t.notMatch(JSON.stringify(stored.payload), personalText, `${row.kind}: no personal details left`);
      t.ok(stored.marked, `${row.kind}: marked minimized`);
    }
    for (const [id, twin] of todays) t.same(after.get(twin.id)!.payload, twin.payload, `today's row of ${id} is never rewritten`);

    const again = await run(minimizeProviderEventInbox({ batch: 2 }));
    t.same(again, { minimized: 0, undecodable: 1, remaining: 1 }, "a second run minimizes nothing");
    t.same(await inboxRows(database), [...after.values()], "and changes nothing");

    // Processing still works on minimized rows: a replay finds its row, provider health reads the inbox.
    const replay = await run(deliver({ id: "evt_old_old-1", ...bodies.payment }));
    t.same({ duplicate: replay.duplicate, status: replay.status, reason: replay.reason }, { duplicate: true, status: "ignored", reason: "unknown_reference" });
    const health = await run(Effect.flatMap(ProviderHealthReads, (reads) => reads.snapshot({ unrecordedBefore: new Date() })));
    t.ok(health.lastProviderEventAt !== null && health.lastProviderEventAt.getTime() >= receivedAt.getTime(), "provider health reads the inbox");
  });

  t.test(`the database refuses every change of an inbox row but the one minimization [${dialect}]`, async (t) => {
    const database = await oldInbox(t, dialect);
    const db = database.db as Kysely<any>;
    const time = (d: Date) => (dialect === "sqlite" ? d.toISOString() : d);
    const minimized = JSON.stringify({ type: "payment.captured", data: { kind: "other" } });
    await t.rejects(db.updateTable("payment_provider_events").set({ status: "processed" }).where("id", "=", "old-1").execute(), refused, "another column");
    await t.rejects(db.updateTable("payment_provider_events").set({ payload: minimized }).where("id", "=", "old-1").execute(), refused, "the payload without the marker");
    await t.rejects(
      db.updateTable("payment_provider_events").set({ payload: minimized, payload_minimized_at: time(new Date()), outcome: "rewritten" }).where("id", "=", "old-1").execute(),
      refused,
      "the rewrite with another column",
    );
    await t.rejects(db.deleteFrom("payment_provider_events").where("id", "=", "old-3").execute(), refused, "DELETE");
    // What the adapter stores today is marked on insert: never rewritten.
    const run = runtimeOver(t, database);
    await run(deliver({ id: "evt_today", ...bodies.other }));
    await t.rejects(
      db.updateTable("payment_provider_events").set({ payload: minimized, payload_minimized_at: time(new Date()) }).where("provider_event_id", "=", "evt_today").execute(),
      refused,
      "a rewrite of a row stored by today's code",
    );
    await t.resolves(
      db.updateTable("payment_provider_events").set({ payload: minimized, payload_minimized_at: time(new Date()) }).where("id", "=", "old-1").execute(),
      "the one rewrite of an unminimized row",
    );
    await t.rejects(
      db.updateTable("payment_provider_events").set({ payload: JSON.stringify({ type: "x", data: { kind: "other" } }), payload_minimized_at: time(new Date(Date.now() + 1000)) }).where("id", "=", "old-1").execute(),
      refused,
      "a second rewrite",
    );
    await t.rejects(db.updateTable("payment_provider_events").set({ payload_minimized_at: null }).where("id", "=", "old-1").execute(), refused, "unmarking");
    await t.rejects(db.deleteFrom("payment_provider_events").where("id", "=", "old-1").execute(), refused, "DELETE of a minimized row");
    if (dialect === "postgres") await t.rejects(sql`TRUNCATE payment_provider_events`.execute(db), refused, "TRUNCATE");
    const rows = await inboxRows(database);
    t.equal(rows.length, oldRows.length + 1, "every row is kept");
    t.same(parsed(rows.find((r) => r.id === "old-1")!.payload), JSON.parse(minimized), "the one rewrite holds");
    t.same(rows.find((r) => r.id === "old-3")!.payload, bodyOf("refund", "evt_old_old-3"), "refused changes left the row whole");
  });

  t.test(`racing minimizations rewrite each row once [${dialect}]`, async (t) => {
    const database = await oldInbox(t, dialect);
    const run = runtimeOver(t, database);
    // On Postgres each run takes its own pooled connection per batch transaction.
    const runs = await Promise.all(Array.from({ length: 4 }, () => run(minimizeProviderEventInbox({ batch: 2 }))));
    t.equal(runs.reduce((sum, r) => sum + r.minimized, 0), oldRows.length - 1, "each readable row is minimized by one run");
    t.ok(runs.every((r) => r.undecodable === 1 && r.remaining === 1), "every run left the unreadable row whole");
    const rows = await inboxRows(database);
    t.same(rows.filter((r) => !r.marked).map((r) => r.id), ["old-2"], "only the unreadable row is unmarked");
    t.same(rows.find((r) => r.id === "old-1")!.payload, { type: "payment.captured", data: { kind: "payment", status: "captured", reference: "pi_old_attempt_1", providerPaymentId: "sbx_pay_old", amountMinor: 1000, capturedMinor: 1000, currency: "EUR", declineCode: null } });
  });
}

// SQLite has no row-to-JSON to compare a row whole: its trigger names the columns that must not
// change (payments migration 32). Every column the table has today, read from the table itself, is
// held by it, so a column added later without the trigger's list fails here.
t.test("SQLite: the one minimization refuses a change of any other column the table has [sqlite]", async (t) => {
  const database = await oldInbox(t, "sqlite");
  const db = database.db as Kysely<any>;
  const { rows: columns } = await sql<{ name: string }>`SELECT name FROM pragma_table_info('payment_provider_events')`.execute(db);
  const held = columns.map((c) => c.name).filter((name) => name !== "payload" && name !== "payload_minimized_at");
  t.ok(held.length >= 10, `the table's other columns (${held.join(", ")})`);
  const rewrite = { payload: JSON.stringify({ type: "payment.captured", data: { kind: "other" } }), payload_minimized_at: new Date().toISOString() };
  for (const column of held) {
    await t.rejects(
      sql`UPDATE payment_provider_events SET payload = ${rewrite.payload}, payload_minimized_at = ${rewrite.payload_minimized_at},
            ${sql.ref(column)} = 'changed:' || coalesce(${sql.ref(column)}, '') WHERE id = 'old-1'`.execute(db),
      refused,
      `the rewrite with ${column} changed`,
    );
  }
  await t.resolves(db.updateTable("payment_provider_events").set(rewrite).where("id", "=", "old-1").execute(), "the rewrite alone");
});
