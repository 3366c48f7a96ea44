/**
 * Routing of fulfillment task events to the operators' channels (core/commerce/FulfillmentChannels.ts),
 * as the module's realtime consumer runs it: an event about an unassigned task (a release, a new
 * open task, a task leaving the unassigned ones) is one message on the store's pool channel
 * `shop-fulfillment:<store id>`, whatever the number of operators, and its routing reads no staff
 * role (before: one message per operator and owner, read in pages of every operator role). A held
 * task's event goes to its holder's own channel, while they are an operator: one read of that
 * user's roles. A store of 250 warehouse operators and 500 other staff. SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { fulfillmentChannel, fulfillmentPoolChannel } from "../../core/commerce/ChannelAccess.js";
import { fulfillmentOperatorChannels } from "../../core/commerce/FulfillmentChannels.js";
import { FulfillmentTaskAssigned, FulfillmentTaskLeftList } from "../../core/commerce/Events.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialect } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared } from "../support/sqlitePlans.js";
import { commerceTestModules, testSealingKey } from "./support.js";

const store = "store-1";
const operators = 250;
const otherStaff = 500;
const id = (prefix: string, n: number) => `${prefix}-${String(n).padStart(5, "0")}`;

/** A store with an owner, 250 warehouse operators and 500 other staff. */
const seedStaff = async (db: SqlDatabase) => {
  const at = featuresFor(db).timeToDb(new Date());
  await db.db
    .insertInto("shop_stores")
    .values({ id: store, name: "Shop", currency: "EUR", owner_id: "owner-1", merchant_id: "merchant-1", tax_rate_basis_points: 0, created_at: at })
    .execute();
  const role = (userId: string, name: string) => ({ store_id: store, user_id: userId, role: name, granted_by: "owner-1", created_at: at });
  const rows = [
    role("owner-1", "owner"),
    ...Array.from({ length: operators }, (_, i) => role(id("operator", i), "warehouse_operator")),
    ...Array.from({ length: otherStaff }, (_, i) => role(id("staff", i), i % 2 === 0 ? "support" : "catalog_manager")),
  ];
  for (let i = 0; i < rows.length; i += 250) await db.db.insertInto("shop_staff_roles").values(rows.slice(i, i + 250)).execute();
};

const envelope = (type: string, data: Record<string, unknown>) => ({
  id: `event-${type}`,
  type,
  schema_version: 1,
  tenant_id: store,
  aggregate_id: "task-1",
  aggregate_version: 2,
  occurred_at: new Date().toISOString(),
  actor_id: null,
  data,
});

/** The consumer's routing of `event` over `db`. */
const router = (db: SqlDatabase) => {
  const layer = moduleLayer(
    db,
    compose()
      .add(paymentsModule)
      .add(makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") }, sealingKeys: { currentKeyId: "k1", keys: { k1: testSealingKey } } })),
  );
  return (event: ReturnType<typeof envelope>) => () => Effect.runPromise(Effect.provide(fulfillmentOperatorChannels(event), layer));
};

const readsRoles = (text: string) => text.includes('"shop_staff_roles"');

/** The statements reading staff roles that `route` sends, and its answer. */
const rolesReadBy = async (db: SqlDatabase, route: () => Promise<ReadonlyArray<string>>) => {
  if (db.dialect === "sqlite") {
    const { result, executed } = await capturePrepared(readsRoles, route);
    return { channels: result, reads: executed.size };
  }
  let channels: ReadonlyArray<string> = [];
  const sent = await sentToPostgres(readsRoles, async () => {
    channels = await route();
  });
  return { channels, reads: sent.length };
};

t.test("an unassigned task's event is one message on the store's pool channel, routed without reading staff roles", (t) =>
  forEachDialect(
    t,
    "unassigned task routing",
    async (t, db) => {
      await seedStaff(db);
      const route = router(db);
      const released = await rolesReadBy(db, route(envelope(FulfillmentTaskAssigned.type, { task_id: "task-1", order_id: "order-1", assignee_id: null })));
      t.same(released, { channels: [fulfillmentPoolChannel(store)], reads: 0 }, "a release: the pool, once");
      const taken = await rolesReadBy(db, route(envelope(FulfillmentTaskLeftList.type, { task_id: "task-1", operator_id: null })));
      t.same(taken, { channels: [fulfillmentPoolChannel(store)], reads: 0 }, "leaving the unassigned ones: the pool, once");
    },
    commerceTestModules,
  ),
);

t.test("a held task's event goes to its holder's own channel while they are an operator, reading that user's roles only", (t) =>
  forEachDialect(
    t,
    "held task routing",
    async (t, db) => {
      await seedStaff(db);
      const route = router(db);
      const holder = id("operator", 7);
      const assigned = await rolesReadBy(db, route(envelope(FulfillmentTaskAssigned.type, { task_id: "task-1", order_id: "order-1", assignee_id: holder })));
      t.same(assigned, { channels: [fulfillmentChannel(store, holder)], reads: 1 }, "the assignee's channel");
      const notOperator = await rolesReadBy(db, route(envelope(FulfillmentTaskAssigned.type, { task_id: "task-1", order_id: "order-1", assignee_id: id("staff", 0) })));
      t.same(notOperator, { channels: [], reads: 1 }, "a holder who is not an operator (support) is told nothing");
    },
    commerceTestModules,
  ),
);
