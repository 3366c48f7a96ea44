/**
 * What the checkout-risk signals keep about a client (security audit S4; spec, E-commerce: guest
 * data has retention): only keyed digests of the client's network and normalised e-mail, never
 * the address or the e-mail; an IPv6 client counts as its /64; the rows are deleted a day after
 * their checkout. The database keeps the invariants (commerce migration 29): a signal is a
 * digest, a decline is marked once and never before its checkout. SQLite and Postgres.
 */
import { createHash } from "node:crypto";
import t from "tap";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { checkoutRiskSignals, clientNetwork, normalisedEmail } from "../../core/commerce/RiskSignals.js";
import { cartWith, checkoutInput, commerceRuntime, customer, everyCommerceRow, forEachCommerceDialect, seedStore } from "./support.js";

const day = 24 * 60 * 60 * 1000;

t.test("a client's network is its IPv4 address or its IPv6 /64; an e-mail loses case and +tag", async (t) => {
  t.equal(clientNetwork("203.0.113.9"), "203.0.113.9");
  t.equal(clientNetwork("::ffff:203.0.113.9"), "203.0.113.9", "an IPv4-mapped address is the IPv4 one");
  t.equal(clientNetwork("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  t.equal(clientNetwork("2001:DB8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64", "every host of a /64 is one network");
  t.equal(clientNetwork("2001:db8::1%eth0"), "2001:db8:0:0::/64");
  t.equal(clientNetwork("::1"), "0:0:0:0::/64");
  t.equal(clientNetwork(""), null);
  t.equal(normalisedEmail(" Mallory+Shop@Example.COM "), "mallory@example.com");
  t.equal(normalisedEmail("+x@example.com"), "+x@example.com", "an empty local part before + stays");
  t.same(checkoutRiskSignals(null, "198.51.100.7", "A@B.example"), ["ip:198.51.100.7", "email:a@b.example"]);
  t.same(checkoutRiskSignals("user-1", null, "A@B.example"), ["account:user-1", "email:a@b.example"]);
  t.same(checkoutRiskSignals(null, null, null), []);
});

t.test("a checkout's risk signals and their locks are stored as keyed digests only, and deleted a day after the checkout", (t) =>
  forEachCommerceDialect(t, "risk signal digests", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const ip = "198.51.100.77";
    const email = "Card.Tester+1@Example.org";
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const declined = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_declined", clientIp: ip, email })));
    t.match(declined, { ok: false, error: { code: "payment_declined" } });
    const rows = await db.db.selectFrom("shop_checkout_risk_signals").selectAll().execute();
    t.equal(rows.length, 3, "one row each for the account, the network and the e-mail");
    for (const row of rows) {
      t.match(String(row.signal), /^[0-9a-f]{64}$/, "a digest");
      t.not(row.declined_at, null, "marked declined with its order");
    }
    const locks = await db.db.selectFrom("shop_checkout_risk_locks").selectAll().execute();
    t.same(locks.map((l) => String(l.signal)).sort(), rows.map((r) => String(r.signal)).sort(), "one lock per signal, under its digest");
    const unkeyed = ["ip:198.51.100.77", "email:card.tester@example.org", `account:${shopper.userId}`].map((s) => createHash("sha256").update(s).digest("hex"));
    t.notOk(rows.some((r) => unkeyed.includes(String(r.signal))), "not a plain hash anyone can recompute from a guess");
    const text = (await everyCommerceRow(db)).toLowerCase();
    for (const clear of [ip, "card.tester", "example.org"]) t.notOk(text.includes(clear), `no commerce row holds ${clear} in clear`);

    const early = await c.later(12 * 60 * 60_000, applyRetention);
    t.equal(early.checkoutRiskSignals, 0, "kept within the day");
    t.equal(early.checkoutRiskLocks, 0, "locks kept within the day");
    const later = await c.later(day + 60_000, applyRetention);
    t.equal(later.checkoutRiskSignals, 3, "deleted a day after the checkout");
    t.equal(later.checkoutRiskLocks, 3, "locks deleted a day after they were last taken");
    t.equal((await db.db.selectFrom("shop_checkout_risk_signals").selectAll().execute()).length, 0);
    t.equal((await db.db.selectFrom("shop_checkout_risk_locks").selectAll().execute()).length, 0);
  }),
);

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("a risk signal is a digest, marked declined once and never before its checkout (in the database)", (t) =>
  forEachCommerceDialect(t, "risk signal invariants", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { clientIp: "192.0.2.1" })));
    const q = db.db;
    const [row] = await q.selectFrom("shop_checkout_risk_signals").selectAll().where("order_id", "=", placed.order.id).execute();
    t.ok(row !== undefined, "the confirmed checkout's signals are recorded");
    const recordedAt = row!.recorded_at as unknown;
    const signal = String(row!.signal);
    const at = (offsetMs: number) => {
      const time = new Date(new Date(String(recordedAt instanceof Date ? recordedAt.toISOString() : recordedAt)).getTime() + offsetMs);
      return db.dialect === "sqlite" ? time.toISOString() : time;
    };
    await refused(t, "an IP address as a signal", () =>
      q.insertInto("shop_checkout_risk_signals").values({ order_id: placed.order.id, signal: "ip:192.0.2.1", recorded_at: recordedAt, declined_at: null }).execute(),
    );
    await refused(t, "an e-mail as a lock", () =>
      q.insertInto("shop_checkout_risk_locks").values({ signal: "email:card.tester@example.org", locked_at: recordedAt }).execute(),
    );
    await refused(t, "an upper-case or short digest", () =>
      q.insertInto("shop_checkout_risk_signals").values({ order_id: placed.order.id, signal: "A".repeat(64), recorded_at: recordedAt, declined_at: null }).execute(),
    );
    await refused(t, "a decline before the checkout", () =>
      q.updateTable("shop_checkout_risk_signals").set({ declined_at: at(-60_000) }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
    await refused(t, "another digest for a recorded signal", () =>
      q.updateTable("shop_checkout_risk_signals").set({ signal: "0".repeat(64) }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
    await q.updateTable("shop_checkout_risk_signals").set({ declined_at: at(1000) }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute();
    await refused(t, "a second decline time", () =>
      q.updateTable("shop_checkout_risk_signals").set({ declined_at: at(5000) }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
    await refused(t, "an unmarked decline", () =>
      q.updateTable("shop_checkout_risk_signals").set({ declined_at: null }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
  }),
);
