/**
 * What the checkout-risk signals keep about a client (security audit S4; spec, E-commerce: guest
 * data has retention): only keyed digests of the client's network and normalised e-mail, never
 * the address or the e-mail; an IPv6 client counts as its /64; the rows are deleted a day after
 * their checkout. The database keeps the invariants (commerce migration 29): a signal is a
 * digest, a decline is marked once and never before its checkout. A checkout's signals are settled
 * when its payment is answered, in the answer's transaction (migration 31), so the in-flight count
 * reads only unsettled rows; existing rows were settled by the migration. SQLite and Postgres.
 */
import { createHash } from "node:crypto";
import t from "tap";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { checkoutRiskSignals, clientNetwork, normalisedEmail } from "../../core/commerce/RiskSignals.js";
import { Effect } from "effect";
import { commerceMigrations } from "../../adapters/sql/commerce/migrations/index.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { resolveOrderPayment } from "../../core/commerce/OrderPayments.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { at } from "../contract/Kit.js";
import { kitId, lineOf, orderRecord, seedStore as seedKitStore } from "../contract/commerce/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
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
  t.same(checkoutRiskSignals(null, "198.51.100.7", "A@B.example"), [
    { kind: "network", text: "ip:198.51.100.7" },
    { kind: "email", text: "email:a@b.example" },
  ]);
  t.same(checkoutRiskSignals("user-1", null, "A@B.example"), [
    { kind: "account", text: "account:user-1" },
    { kind: "email", text: "email:a@b.example" },
  ]);
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
    // Settled with its confirmed payment (commerce migration 31): once, and never before the checkout.
    t.not(row!.settled_at ?? null, null, "the confirmed checkout's signal is settled");
    await refused(t, "a second settled time", () =>
      q.updateTable("shop_checkout_risk_signals").set({ settled_at: at(9000) }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
    await refused(t, "an unsettled answered checkout", () =>
      q.updateTable("shop_checkout_risk_signals").set({ settled_at: null }).where("order_id", "=", placed.order.id).where("signal", "=", signal).execute(),
    );
    await refused(t, "a checkout settled before it was recorded", () =>
      q.insertInto("shop_checkout_risk_signals").values({ order_id: placed.order.id, signal: "c".repeat(64), recorded_at: recordedAt, declined_at: null, settled_at: at(-60_000) }).execute(),
    );
  }),
);

t.test("a checkout's signals are settled when its payment is answered, in the transaction that records the answer; in flight they stay unsettled", (t) =>
  forEachCommerceDialect(t, "risk signals settled", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 10 });
    const settledOf = async (orderId: string) =>
      (await db.db.selectFrom("shop_checkout_risk_signals").select(["settled_at", "declined_at"]).where("order_id", "=", orderId).execute()).map((r) => ({
        settled: r.settled_at !== null,
        declined: r.declined_at !== null,
      }));
    const checkout = async (paymentMethod: string, clientIp: string) => {
      const shopper = customer();
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      return c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod, clientIp, email: `${shopper.userId}@example.com` })));
    };
    const confirmed = await checkout("pm_card_visa", "192.0.2.10");
    t.ok(confirmed.ok, "authorized");
    const confirmedId = confirmed.ok ? confirmed.value.order.id : "";
    t.same(await settledOf(confirmedId), Array(3).fill({ settled: true, declined: false }), "authorized: each signal settled, none declined");

    await checkout("pm_card_declined", "192.0.2.11");
    const [declinedRow] = await db.db.selectFrom("shop_checkout_risk_signals").select("order_id").where("declined_at", "is not", null).execute();
    t.same(await settledOf(String(declinedRow!.order_id)), Array(3).fill({ settled: true, declined: true }), "declined: settled and declined");

    const pending = await checkout("pm_card_timeout_after", "192.0.2.12");
    t.match(pending, { ok: true, value: { order: { status: "payment_pending" } } }, "the answer was lost");
    if (!pending.ok) return;
    const pendingId = pending.value.order.id;
    t.same(await settledOf(pendingId), Array(3).fill({ settled: false, declined: false }), "unresolved: in flight, unsettled");
    const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(pendingId)));
    await c.payments.run(reconcileIntent(payment!.paymentId!));
    t.equal((await c.run(resolveOrderPayment(pendingId)))?.status, "confirmed", "the resolution job records the answer");
    t.same(await settledOf(pendingId), Array(3).fill({ settled: true, declined: false }), "settled with the answer the resolution job recorded");
  }),
);

const beforeThirtyOne = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version < 31) };

forEachDialect(
  t,
  "migration 31 settles the signals of checkouts whose payment was answered, at the time the answer was recorded, and leaves those in flight unsettled",
  async (t, db) => {
    t.equal(beforeThirtyOne.migrations.at(-1)?.version, 30, "the database starts at migration 30");
    const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") } });
    const layer = moduleLayer(db, compose().add(paymentsModule).add(commerceModule));
    const run = <A>(effect: Effect.Effect<A, never, OrdersRepository | CheckoutRiskRepository>) => Effect.runPromise(Effect.provide(effect, layer));
    await Effect.runPromise(Effect.provide(seedKitStore(1), layer));
    const f = featuresFor(db);
    const digest = "d".repeat(64);
    // Orders 1-5: authorized, declined, unknown, authorizing, captured; each recorded at at(1000).
    const statuses = ["authorized", "declined", "unknown", "authorizing", "captured"] as const;
    for (const [i, status] of statuses.entries()) {
      const n = i + 1;
      const orderId = kitId.order(n);
      await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(n), [lineOf(n, 1)])));
      await run(
        Effect.flatMap(OrdersRepository, (r) =>
          r.insertPayment({
            orderId,
            storeId: kitId.store(1),
            merchantId: "merchant-1",
            paymentId: null,
            idempotencyKey: `order:${orderId}/authorize`,
            paymentMethod: "pm_card_visa",
            status,
            amountMinor: 100,
            capturedMinor: status === "captured" ? 100 : 0,
            refundedMinor: 0,
            updatedAt: at(2000 * n),
          }),
        ),
      );
      await run(Effect.flatMap(CheckoutRiskRepository, (r) => r.recordSignals(orderId, [digest], at(1000))));
    }
    await run(Effect.flatMap(CheckoutRiskRepository, (r) => r.markDeclined(kitId.order(2), at(3000))));

    await migrate(db, [paymentsModule, commerceModule]);
    const rows = await db.db.selectFrom("shop_checkout_risk_signals").select(["order_id", "settled_at"]).orderBy("order_id").execute();
    const settledAt = (n: number) => {
      const value = rows.find((r) => r.order_id === kitId.order(n))?.settled_at;
      return value === null || value === undefined ? null : f.timeFromDb(value).toISOString();
    };
    t.equal(settledAt(1), at(2000).toISOString(), "authorized: settled when its payment was last written");
    t.equal(settledAt(2), at(3000).toISOString(), "declined: settled when declined");
    t.equal(settledAt(3), null, "unknown: in flight");
    t.equal(settledAt(4), null, "authorizing: in flight");
    t.equal(settledAt(5), at(10000).toISOString(), "captured: settled when its payment was last written");
    const [risk] = await run(Effect.flatMap(CheckoutRiskRepository, (r) => r.riskSince([digest], at(0), 5)));
    t.same(risk, { declines: [at(3000)], unresolved: 2 }, "the count reads the two in flight and the decline, as before the migration");
  },
  [paymentsModule, beforeThirtyOne],
);
