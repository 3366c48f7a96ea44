/**
 * The operator's entry point of the one-off inbox minimization (MinimizeStoredProviderEvents.ts),
 * through the built CLI: `payments-minimize-inbox [--batch n]` rewrites a row stored with the
 * provider's whole body to what the core reads and prints {minimized, undecodable, remaining} as
 * one JSON line; a second run changes nothing; a bad --batch (not 1-1000) exits 2 with the usage, touching no
 * database. SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { openConfiguredDatabase } from "../../hosts/Database.js";
import { cli, forEachDialectConfig, testConfig } from "../hosts/support.js";

const created = Math.floor(Date.now() / 1000);
// A body as the sandbox sends it, stored whole (as the inbox did before it kept what the core reads).
const body = {
  id: "evt_cli_old",
  type: "payment.authorized",
  created,
  data: { object: "payment", reference: "pi_cli_attempt", provider_payment_id: "sbx_pay_cli", status: "authorized", amount_minor: 700, captured_minor: 0, currency: "EUR", decline_code: null, billing_details: { name: "Ada Customer" } },
};

const minimizeInbox = async (config: Parameters<typeof cli>[0], args: ReadonlyArray<string> = []) =>
  JSON.parse((await cli(config, ["payments-minimize-inbox", ...args])).stdout) as Record<string, unknown>;

t.test("payments-minimize-inbox minimizes rows stored whole, once, and prints its counts", (t) =>
  forEachDialectConfig(t, "minimize inbox cli", async (t, config, dialect) => {
    t.same(await minimizeInbox(config), { minimized: 0, undecodable: 0, remaining: 0 }, "an empty inbox (the run migrates)");
    const database = await openConfiguredDatabase(config);
    const db = database.db as Kysely<any>;
    const at = dialect === "sqlite" ? new Date(created * 1000).toISOString() : new Date(created * 1000);
    try {
      await db
        .insertInto("payment_provider_events")
        .values({ id: "old-cli", provider_event_id: body.id, type: body.type, payload: JSON.stringify(body), status: "ignored", outcome: "unknown_reference", merchant_id: null, provider_object: null, occurred_at: at, received_at: at, processed_at: at })
        .execute();
    } finally {
      await database.close();
    }
    t.same(await minimizeInbox(config, ["--batch", "1"]), { minimized: 1, undecodable: 0, remaining: 0 });
    t.same(await minimizeInbox(config), { minimized: 0, undecodable: 0, remaining: 0 }, "a second run changes nothing");
    const reopened = await openConfiguredDatabase(config);
    try {
      const row = await (reopened.db as Kysely<any>).selectFrom("payment_provider_events").select(["payload", "payload_minimized_at"]).where("id", "=", "old-cli").executeTakeFirstOrThrow();
      const payload = typeof row.payload === "string" ? (JSON.parse(row.payload) as unknown) : row.payload;
      t.same(payload, {
        type: "payment.authorized",
        data: { kind: "payment", status: "authorized", reference: "pi_cli_attempt", providerPaymentId: "sbx_pay_cli", amountMinor: 700, capturedMinor: 0, currency: "EUR", declineCode: null },
      });
      t.not(row.payload_minimized_at, null, "marked minimized");
    } finally {
      await reopened.close();
    }
  }),
);

t.test("payments-minimize-inbox with a bad --batch exits 2 with the usage", async (t) => {
  const config = await testConfig("sqlite", t);
  for (const args of [["--batch", "0"], ["--batch", "ten"], ["--batch", "1001"], ["now"]]) {
    const failure = await cli(config, ["payments-minimize-inbox", ...args]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    t.equal(failure?.code, 2, args.join(" "));
    t.match(failure?.stderr ?? "", /payments-minimize-inbox \[--batch n\]/, "the usage names the command");
  }
});
