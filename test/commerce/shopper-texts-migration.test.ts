/**
 * Commerce migration 26 on a database whose timelines hold shopper texts written before
 * migration 24 (spec, E-commerce: "guest data has retention"): a customer's or guest's
 * cancellation reason moves into a note the entry refers to (cleared at once for a guest order
 * already minimized), `return.authorized` entries drop their copy of the return's reason, and a
 * staff member's reason stays on the timeline (until migration 27); the timeline is append-only again afterwards —
 * SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { commerceMigrations } from "../../adapters/sql/commerce/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { compose } from "../../hosts/Composition.js";
import { TimelineEntryId } from "../../core/commerce/model/Ids.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { at } from "../contract/Kit.js";
import { kitId, lineOf, orderRecord, seedStore, uid } from "../contract/commerce/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { timelineEntries } from "./timeline.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") } });
const modules = compose().add(paymentsModule).add(commerceModule);
const beforeTwentySix = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version < 26) };
// Up to 26 only: migration 27 moves staff reasons off the timeline too (staff-reasons-migration.test.ts).
const throughTwentySix = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version <= 26) };

forEachDialect(
  t,
  "migration 26 moves shoppers' texts off the timeline, clears those of minimized guest orders and keeps staff reasons",
  async (t, db) => {
    t.equal(beforeTwentySix.migrations.at(-1)?.version, 25, "the database starts at migration 25");
    const run = <A>(effect: Effect.Effect<A, never, OrdersRepository>) => Effect.runPromise(Effect.provide(effect, moduleLayer(db, modules)));
    await Effect.runPromise(Effect.provide(seedStore(1), moduleLayer(db, modules)));
    // Order 1: a guest's, minimized since; order 2: a customer's.
    await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(1, null), [lineOf(1, 1)])));
    await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(2), [lineOf(2, 1)])));
    await db.db.updateTable("shop_orders").set({ minimized_at: featuresFor(db).timeToDb(at(50)) }).where("id", "=", kitId.order(1)).execute();
    const entry = (n: number, orderN: number, kind: string, actorId: string, detail: unknown) =>
      run(
        Effect.flatMap(OrdersRepository, (r) =>
          r.appendTimeline({ id: TimelineEntryId.make(uid("tle", n)), storeId: kitId.store(1), orderId: kitId.order(orderN), kind, actorId, detail, createdAt: at(n) }),
        ),
      );
    await entry(1, 1, "order.cancellation_requested", "guest", { reason: "guest text" });
    await entry(2, 2, "order.cancellation_requested", "user:c", { reason: "customer text" });
    await entry(3, 2, "order.cancellation_requested", "staff:s", { reason: "staff text" });
    await entry(4, 1, "return.authorized", "guest", { return_id: "r1", refund_minor: 100, reason: "return text" });

    await migrate(db, [paymentsModule, throughTwentySix]);
    const timeline = JSON.stringify(await db.db.selectFrom("shop_order_timeline").select(["id", "detail"]).execute());
    t.notOk(timeline.includes("guest text"), "the guest's reason left the timeline");
    t.notOk(timeline.includes("customer text"), "the customer's too");
    t.notOk(timeline.includes("return text"), "return entries keep no copy of the reason");
    t.ok(timeline.includes("staff text"), "a staff reason stays");
    const notes = await run(Effect.flatMap(OrdersRepository, (r) => Effect.all([r.notesOf(kitId.order(1)), r.notesOf(kitId.order(2))])));
    t.same(notes.map((n) => n.map((x) => [x.id, x.body])), [[[`note:${uid("tle", 1)}`, null]], [[`note:${uid("tle", 2)}`, "customer text"]]], "notes, the minimized guest's cleared");
    const [guestEntry] = await run(timelineEntries(kitId.order(1)));
    t.same(guestEntry?.detail, { note_id: `note:${uid("tle", 1)}` }, "the entry refers to its note");
    const changed = await db.db.updateTable("shop_order_timeline").set({ kind: "x" }).execute().then(() => "accepted", () => "refused");
    t.equal(changed, "refused", "the timeline is append-only again");
  },
  [paymentsModule, beforeTwentySix],
);
