/**
 * Commerce migration 27 on a database whose timelines hold staff reasons (docs/decisions.md: free
 * text on a guest order follows guest retention; the audit fact stays): a staff reason of a
 * cancellation, a return stage, a refund request or a task's assignment or release moves into a
 * note the entry refers to (cleared at once for a guest order already minimized), a restock's
 * stock adjustment keeps only `return <id>`, and from then on the database refuses such a reason
 * on the timeline or in a restock's adjustment; both tables are append-only again afterwards —
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
import { StockAdjustmentId, TimelineEntryId } from "../../core/commerce/model/Ids.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { at } from "../contract/Kit.js";
import { kitId, lineOf, orderRecord, seedStore, uid } from "../contract/commerce/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { timelineEntries } from "./timeline.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") } });
const modules = compose().add(paymentsModule).add(commerceModule);
const beforeTwentySeven = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version < 27) };

forEachDialect(
  t,
  "migration 27 moves staff reasons off the timeline and out of restock adjustments, clears those of minimized guest orders, and the database refuses new ones",
  async (t, db) => {
    t.equal(beforeTwentySeven.migrations.at(-1)?.version, 26, "the database starts at migration 26");
    type Services = OrdersRepository | InventoryRepository;
    const run = <A>(effect: Effect.Effect<A, never, Services>) => Effect.runPromise(Effect.provide(effect, moduleLayer(db, modules)));
    await Effect.runPromise(Effect.provide(seedStore(1), moduleLayer(db, modules)));
    // Order 1: a guest's, minimized since; order 2: a customer's.
    await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(1, null), [lineOf(1, 1)])));
    await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(2), [lineOf(2, 1)])));
    await db.db.updateTable("shop_orders").set({ minimized_at: featuresFor(db).timeToDb(at(50)) }).where("id", "=", kitId.order(1)).execute();
    await run(
      Effect.flatMap(OrdersRepository, (r) =>
        r.insertReturn({
          id: kitId.ret(1),
          storeId: kitId.store(1),
          orderId: kitId.order(1),
          status: "authorized",
          reason: null,
          lines: [{ orderLineId: kitId.line(11), quantity: 1 }],
          refundMinor: 100,
          refundAttempt: 1,
          version: 1,
          createdAt: at(1),
          updatedAt: at(1),
        }),
      ),
    );
    const entry = (n: number, orderN: number, kind: string, actorId: string, detail: unknown) =>
      Effect.flatMap(OrdersRepository, (r) =>
        r.appendTimeline({ id: TimelineEntryId.make(uid("tle", n)), storeId: kitId.store(1), orderId: kitId.order(orderN), kind, actorId, detail, createdAt: at(n) }),
      );
    const adjustment = (n: number, reason: string) =>
      Effect.flatMap(InventoryRepository, (r) =>
        r.insertAdjustment({
          id: StockAdjustmentId.make(uid("adj", n)),
          storeId: kitId.store(1),
          variantId: kitId.var(1),
          locationId: kitId.loc(1),
          delta: 1,
          reason,
          actorId: "staff:s",
          createdAt: at(n),
        }),
      );
    await run(entry(1, 1, "order.cancellation_requested", "staff:s", { reason: "cancel text" }));
    await run(entry(2, 1, "return.received", "staff:s", { return_id: kitId.ret(1), reason: "received text" }));
    await run(entry(3, 1, "return.refund_requested", "staff:s", { return_id: kitId.ret(1), reason: "refund text", amount_minor: 100, attempt: 1 }));
    await run(entry(4, 2, "fulfillment.released", "staff:s", { task_id: "t", assignee_id: null, previous_assignee_id: "u", reason: "released text" }));
    await run(entry(5, 2, "cancellation.deferred", "staff:s", { reason: "PaymentUnavailable" }));
    await run(entry(6, 2, "order.cancellation_requested", "user:c", { reason: "" }));
    await run(adjustment(1, `return ${kitId.ret(1)}: restock text`));
    await run(adjustment(2, "return shelf: counted again"));

    await migrate(db, [paymentsModule, commerceModule]);
    const timeline = JSON.stringify(await db.db.selectFrom("shop_order_timeline").select(["id", "detail"]).execute());
    for (const text of ["cancel text", "received text", "refund text", "released text"]) t.notOk(timeline.includes(text), `"${text}" left the timeline`);
    const notes = await run(Effect.flatMap(OrdersRepository, (r) => Effect.all([r.notesOf(kitId.order(1)), r.notesOf(kitId.order(2))])));
    t.same(
      notes.map((n) => n.map((x) => [x.id, x.body])),
      [
        [
          [`note:${uid("tle", 1)}`, null],
          [`note:${uid("tle", 2)}`, null],
          [`note:${uid("tle", 3)}`, null],
        ],
        [[`note:${uid("tle", 4)}`, "released text"]],
      ],
      "notes, the minimized guest's cleared",
    );
    const [, received] = await run(timelineEntries(kitId.order(1)));
    t.same(received?.detail, { return_id: kitId.ret(1), note_id: `note:${uid("tle", 2)}` }, "the entry refers to its note");
    const kept = await run(timelineEntries(kitId.order(2)));
    t.same(
      kept.filter((e) => e.kind !== "fulfillment.released").map((e) => e.detail),
      [{ reason: "PaymentUnavailable" }, { reason: "" }],
      "an error name and an empty shopper reason stay",
    );
    const reasons = await db.db.selectFrom("shop_stock_adjustments").select("reason").orderBy("id").execute();
    t.same(reasons.map((r) => r.reason), [`return ${kitId.ret(1)}`, "return shelf: counted again"], "a restock's adjustment names only its return; another stays");

    const refused = async (what: string, effect: Effect.Effect<unknown, never, Services>) =>
      t.equal(await run(effect).then(() => "accepted", () => "refused"), "refused", `the database refuses ${what}`);
    await refused("a staff reason on the timeline", entry(7, 2, "return.quarantined", "staff:s", { return_id: kitId.ret(1), reason: "new text" }));
    await refused("a cancellation reason on the timeline", entry(8, 2, "order.cancellation_requested", "staff:s", { reason: "new text" }));
    await refused("a restock adjustment quoting the staff reason", adjustment(3, `return ${kitId.ret(1)}: new text`));
    const changed = async (what: string, table: "shop_order_timeline" | "shop_stock_adjustments") =>
      t.equal(await db.db.deleteFrom(table).execute().then(() => "accepted", () => "refused"), "refused", `${what} is append-only again`);
    await changed("the timeline", "shop_order_timeline");
    await changed("the stock ledger", "shop_stock_adjustments");
  },
  [paymentsModule, beforeTwentySeven],
);
