/**
 * Commerce migration 25 on a database whose returns were refused before the refund_failed stage
 * existed (spec, E-commerce States: return stages; "nothing is lost on failure"): a return left
 * refund_requested after the payment refused its refund (recorded then only by the job's event
 * receipt) moves to refund_failed, from which support requests it again; a return still waiting
 * for a refund that was not refused stays refund_requested — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { commerceMigrations } from "../../adapters/sql/commerce/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { compose } from "../../hosts/Composition.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { at } from "../contract/Kit.js";
import { kitId, lineOf, orderRecord, seedStore } from "../contract/commerce/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") } });
const modules = compose().add(paymentsModule).add(commerceModule);
const beforeRefundFailed = { name: "commerce", migrations: commerceMigrations.filter((m) => m.version < 23) };

forEachDialect(
  t,
  "migration 25 moves returns whose refund was refused to refund_failed; a return still waiting stays refund_requested",
  async (t, db) => {
    t.equal(beforeRefundFailed.migrations.at(-1)?.version, 22, "the database starts at migration 22");
    const run = <A>(effect: Effect.Effect<A, never, OrdersRepository | never>) => Effect.runPromise(Effect.provide(effect, moduleLayer(db, modules)));
    await Effect.runPromise(Effect.provide(seedStore(1), moduleLayer(db, modules)));
    await run(Effect.flatMap(OrdersRepository, (r) => r.insertOrder(orderRecord(1), [lineOf(1, 1)])));
    const time = featuresFor(db).timeToDb;
    const returnRow = (n: number) => ({
      id: kitId.ret(n),
      store_id: kitId.store(1),
      order_id: kitId.order(1),
      status: "refund_requested",
      reason: "too small",
      lines: JSON.stringify([{ orderLineId: kitId.line(11), quantity: 1 }]),
      refund_minor: 100,
      version: 3,
      created_at: time(at(n)),
      updated_at: time(at(n)),
    });
    await db.db.insertInto("shop_returns").values([returnRow(1), returnRow(2)]).execute();
    // The old job's record of return 1's refused refund.
    await db.db.insertInto("shop_event_receipts").values({ consumer: "commerce.return-refunds", event_id: `refund_failed:${kitId.ret(1)}`, received_at: time(at(5)) }).execute();

    await migrate(db, [paymentsModule, commerceModule]);
    const refused = await run(Effect.flatMap(OrdersRepository, (r) => r.findReturn(kitId.ret(1))));
    t.same([refused?.status, refused?.refundAttempt, refused?.version], ["refund_failed", 1, 4], "the refused refund's return has its stage");
    t.equal((await run(Effect.flatMap(OrdersRepository, (r) => r.findReturn(kitId.ret(2)))))?.status, "refund_requested", "a waiting one stays");
    const again = await run(Effect.flatMap(OrdersRepository, (r) => r.requestReturnRefundAgain(kitId.ret(1), 1, at(9))));
    t.same([again?.status, again?.refundAttempt], ["refund_requested", 2], "support can request it again");
  },
  [paymentsModule, beforeRefundFailed],
);
