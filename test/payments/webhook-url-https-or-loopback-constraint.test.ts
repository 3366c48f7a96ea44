/**
 * A stored merchant webhook URL is https, or plain http on the loopback interface (security audit
 * S1; the core allows the latter only where the host says so, WebhookTarget.ts). The database
 * holds the form too, whoever writes (payments migration 33): a plain-http URL to any other host,
 * another scheme, or credentials before a loopback host are refused on insert and on update.
 * SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";

const at = new Date().toISOString();
const endpoint = (id: string, url: string) => ({ id, merchant_id: "merchant-a", url, events: null, signing_secret: "whsec_".padEnd(40, "x"), created_at: at, deleted_at: null });

t.test("a stored webhook URL is https or plain http on the loopback interface: any other is refused on insert and update", (t) =>
  forEachDialect(t, "webhook url form", async (t, database) => {
    const db = database.db as Kysely<any>;
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
    const refused = [
      "http://10.0.0.1/hook",
      "http://hooks.merchant.example/hook",
      "http://localhost.evil.example/",
      "http://127.0.0.1.nip.io/",
      "http://127.0.0.1:1@evil.example/",
      "http://[::1]@evil.example/",
      "HTTP://127.0.0.1/",
      "ftp://127.0.0.1/",
      "ws://localhost/",
    ];
    for (const [n, url] of refused.entries()) {
      await t.rejects(db.insertInto("payment_webhook_endpoints").values(endpoint(`bad-${n}`, url)).execute(), `${url} is refused`);
    }
    const stored = ["https://hooks.merchant.example/payments", "http://127.0.0.1:8080/hook", "http://localhost/", "http://[::1]:3000/h?a=b@c"];
    for (const [n, url] of stored.entries()) {
      await db.insertInto("payment_webhook_endpoints").values(endpoint(`ok-${n}`, url)).execute();
    }
    t.same((await db.selectFrom("payment_webhook_endpoints").select("url").orderBy("id").execute()).map((r) => r.url).sort(), [...stored].sort(), "only https and loopback http are stored");
    await t.rejects(db.updateTable("payment_webhook_endpoints").set({ url: "http://169.254.169.254/latest/" }).where("id", "=", "ok-0").execute(), "an update to plain http off loopback is refused");
    await db.updateTable("payment_webhook_endpoints").set({ url: "https://hooks.merchant.example/v2" }).where("id", "=", "ok-1").execute();
    t.equal((await db.selectFrom("payment_webhook_endpoints").select("url").where("id", "=", "ok-0").executeTakeFirst())?.url, stored[0], "the refused update changed nothing");
  }),
);
