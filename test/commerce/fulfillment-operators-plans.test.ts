/**
 * Every realtime event about an unassigned fulfillment task is routed to each current warehouse
 * operator and owner of the store, read in the `commerce.realtime` consumer
 * (core/commerce/FulfillmentChannels.ts). The read takes only those roles' rows, in bounded pages:
 * `StoresRepository.holdersOfRole` seeks `shop_staff_roles_by_role (store_id, role, user_id)`
 * (commerce migration 33) per role, in user order, never the store's other staff. Before, it paged
 * through every staff role of the store. Plans of the statements the consumer's routing really
 * sends, with its values, over a store of 2,000 support and catalog staff beside 250 operators:
 * EXPLAIN QUERY PLAN on SQLite, the generic and a measured plan on Postgres.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import t from "tap";
import { fulfillmentChannel } from "../../core/commerce/ChannelAccess.js";
import { fulfillmentOperatorChannels } from "../../core/commerce/FulfillmentChannels.js";
import { FulfillmentTaskAssigned } from "../../core/commerce/Events.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { openTestDatabase } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { genericPlan, measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { commerceTestModules, testSealingKey } from "./support.js";

const store = "store-1";
const operators = 250;
const otherStaff = 2000;
const id = (prefix: string, n: number) => `${prefix}-${String(n).padStart(5, "0")}`;

/** A store with an owner, 250 warehouse operators and 2,000 other staff; another store's operator beside it. */
const seedStaff = async (db: SqlDatabase) => {
  const at = featuresFor(db).timeToDb(new Date());
  const storeRow = (storeId: string) => ({ id: storeId, name: "Shop", currency: "EUR", owner_id: "owner-1", merchant_id: "merchant-1", tax_rate_basis_points: 0, created_at: at });
  await db.db.insertInto("shop_stores").values([storeRow(store), storeRow("store-2")]).execute();
  const role = (storeId: string, userId: string, name: string) => ({ store_id: storeId, user_id: userId, role: name, granted_by: "owner-1", created_at: at });
  const rows = [
    role(store, "owner-1", "owner"),
    role("store-2", id("operator", 1), "warehouse_operator"),
    ...Array.from({ length: operators }, (_, i) => role(store, id("operator", i), "warehouse_operator")),
    ...Array.from({ length: otherStaff }, (_, i) => role(store, id("staff", i), i % 2 === 0 ? "support" : "catalog_manager")),
  ];
  for (let i = 0; i < rows.length; i += 500) await db.db.insertInto("shop_staff_roles").values(rows.slice(i, i + 500)).execute();
  await sql`ANALYZE`.execute(db.db);
};

/** The consumer's routing of a released task (every operator of the store is told), run over `db`. */
const routeReleasedTask = (db: SqlDatabase) => {
  const layer = moduleLayer(
    db,
    compose()
      .add(paymentsModule)
      .add(makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") }, sealingKeys: { currentKeyId: "k1", keys: { k1: testSealingKey } } })),
  );
  const event = {
    id: "event-1",
    type: FulfillmentTaskAssigned.type,
    schema_version: 1,
    tenant_id: store,
    aggregate_id: "task-1",
    aggregate_version: 2,
    occurred_at: new Date().toISOString(),
    actor_id: null,
    data: { task_id: "task-1", order_id: "order-1", assignee_id: null },
  };
  return () => Effect.runPromise(Effect.provide(fulfillmentOperatorChannels(event), layer));
};

const expected = [fulfillmentChannel(store, "owner-1"), ...Array.from({ length: operators }, (_, i) => fulfillmentChannel(store, id("operator", i)))].sort();
const readsRoles = (text: string) => text.includes('from "shop_staff_roles"');

t.test("SQLite: the operators of a store are read by seeking shop_staff_roles_by_role per operator role, in user order, none of the other staff", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  await seedStaff(db);
  const { result, executed } = await capturePrepared(readsRoles, routeReleasedTask(db));
  t.same([...result].sort(), expected, "every operator and the owner, nobody else");
  t.equal(executed.size, 2, "two statements: a role's first page and a page on");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH shop_staff_roles USING COVERING INDEX shop_staff_roles_by_role \(store_id=\? AND role=\?( AND user_id>\?)?\)/.test(detail)),
      `seeks the role's holders: ${details.join(" | ")}`,
    );
    t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), "no sort: the index gives the user order");
  }
});

t.test("Postgres: the operators of a store are read through shop_staff_roles_by_role, reading only operator rows", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  await seedStaff(db);
  let result: ReadonlyArray<string> = [];
  const sent = await sentToPostgres(readsRoles, async () => {
    result = await routeReleasedTask(db)();
  });
  t.same([...result].sort(), expected, "every operator and the owner, nobody else");
  t.equal(sent.length, 3, "three pages: the owners', then the operators' in two");
  // Generic plans first: each ends with DEALLOCATE ALL, which would drop the measured plans' prepared statements.
  const plans: Array<{ statement: (typeof sent)[number]; kind: string; plan: Awaited<ReturnType<typeof genericPlan>> }> = [];
  for (const statement of sent) plans.push({ statement, kind: "generic", plan: await genericPlan(db, statement) });
  for (const statement of sent) plans.push({ statement, kind: "measured", plan: await measuredPlan(db, statement) });
  for (const { statement, kind, plan } of plans) {
    const nodes = planNodes(plan);
    const scans = nodes.filter((node) => node["Relation Name"] === "shop_staff_roles" || String(node["Node Type"]) === "Bitmap Index Scan");
    const described = scans.map((scan) => `${String(scan["Node Type"])} ${String(scan["Index Name"] ?? "")}: ${String(scan["Index Cond"] ?? "")}`).join(", ");
    t.ok(
      scans.some((scan) => scan["Index Name"] === "shop_staff_roles_by_role" && String(scan["Index Cond"]).includes("role =")),
      `${kind} plan seeks the role's holders by shop_staff_roles_by_role (${described})`,
    );
    t.notOk(
      scans.some((scan) => String(scan["Node Type"]) === "Seq Scan" || (scan["Index Name"] !== undefined && scan["Index Name"] !== "shop_staff_roles_by_role")),
      `${kind} plan: no other scan of the staff roles`,
    );
    if (kind === "generic") t.notOk(nodes.some((node) => node["Node Type"] === "Sort"), "generic plan: no sort, the index gives the user order");
    if (kind === "measured") {
      // With its values Postgres may fetch a short last page by bitmap and sort it: still only that page's rows.
      const limit = Number(statement.values[statement.values.length - 1]);
      t.ok(rowsRead(plan, "shop_staff_roles") <= limit, `at most a page of rows read (${rowsRead(plan, "shop_staff_roles")})`);
    }
  }
});
