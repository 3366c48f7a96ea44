/**
 * Commerce migration 7 on a database that already has returns (spec: "Create a return
 * authorization for eligible lines"; a unit is never refunded or restocked twice): the units
 * already returned of each order line are counted into `shop_order_line_returns`, capped at the
 * line's quantity (a line listed twice by one return before the fix counts once), and after the
 * migration a return can claim only what is left of each line — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { commerceMigrations } from "../../adapters/sql/commerce/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { compose } from "../../hosts/Composition.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { at } from "../contract/Kit.js";
import { kitId, lineOf, orderRecord, seedStore } from "../contract/commerce/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") } });
const modules = compose().add(paymentsModule).add(commerceModule);
const beforeSeven = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version < 7) };

/** A return row as the tables of migration 6 hold it (written by SQL: today's record has columns added later). */
const returnOf = (n: number, lines: ReadonlyArray<readonly [lineN: number, quantity: number]>) => ({
  id: kitId.ret(n),
  store_id: kitId.store(1),
  order_id: kitId.order(1),
  status: "authorized",
  reason: "too small",
  lines: JSON.stringify(lines.map(([lineN, quantity]) => ({ orderLineId: kitId.line(10 + lineN), quantity }))),
  refund_minor: 100,
  version: 1,
  created_at: at(n),
  updated_at: at(n),
});

forEachDialect(
  t,
  "migration 7 counts the units already returned of each line, capped at its quantity, and later returns claim only what is left",
  async (t, db) => {
    t.same(beforeSeven.migrations.map((m) => m.version), [1, 2, 3, 4, 5, 6], "the database starts at migration 6");
    const orders = <A>(f: (r: OrdersRepository) => Effect.Effect<A>) =>
      Effect.runPromise(Effect.provide(Effect.flatMap(OrdersRepository, f), moduleLayer(db, modules)));
    await Effect.runPromise(Effect.provide(seedStore(1), moduleLayer(db, modules)));
    await orders((r) => r.insertOrder(orderRecord(1), [lineOf(1, 1), lineOf(1, 2), lineOf(1, 3)]));
    const time = featuresFor(db).timeToDb;
    const insertReturn = (row: ReturnType<typeof returnOf>) =>
      db.db.insertInto("shop_returns").values({ ...row, created_at: time(row.created_at), updated_at: time(row.updated_at) }).execute();
    await insertReturn(returnOf(1, [[2, 1]]));
    await insertReturn(returnOf(2, [[2, 1], [3, 2]]));
    // Written before the fix: one return listing line 1 twice.
    await insertReturn(returnOf(3, [[1, 1], [1, 1]]));

    await migrate(db, [paymentsModule, commerceModule]);
    const counted = await db.db.selectFrom("shop_order_line_returns").select(["order_line_id", "line_quantity", "returned_quantity"]).orderBy("order_line_id").execute();
    t.same(
      counted.map((r) => [String(r.order_line_id), Number(r.line_quantity), Number(r.returned_quantity)]),
      [
        [kitId.line(11), 1, 1],
        [kitId.line(12), 2, 2],
        [kitId.line(13), 3, 2],
      ],
      "each returned line's units, the twice-listed one capped at its quantity",
    );
    t.equal(await orders((r) => r.claimReturnedQuantity(kitId.line(13), 1)), true, "the last unit of line 3 can still be returned");
    t.equal(await orders((r) => r.claimReturnedQuantity(kitId.line(13), 1)), false, "no unit of line 3 is left");
    t.equal(await orders((r) => r.claimReturnedQuantity(kitId.line(12), 1)), false, "line 2 was wholly returned before the migration");
    t.equal(await orders((r) => r.claimReturnedQuantity(kitId.line(11), 1)), false, "line 1 too");
  },
  [paymentsModule, beforeSeven],
);
