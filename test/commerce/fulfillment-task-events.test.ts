/**
 * Spec (Authentication 2: warehouse operators work their "assigned fulfillment tasks"; Events:
 * "transactional outbox"). An operator is told a task was assigned to them: taking a task, and the
 * owner's assignment or release of it, publish FulfillmentTaskAssigned (`task_id`, `order_id`,
 * `assignee_id`, null once released) through the outbox in the transaction that moves the task;
 * a move that is refused (a take lost to another operator, a closed or unknown task, a user who is
 * not an operator, nothing to change) publishes nothing, and an outbox write that fails undoes the
 * move. A task's opening and its closing publish FulfillmentTaskStatusChanged the same way (the
 * warehouse's fulfillment channel; security audit 2, F1). SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import { Effect, Schema } from "effect";
import { sql } from "kysely";
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { CommerceEvent } from "../../core/commerce/Events.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { assignFulfillmentTask, createFulfillmentTask, listFulfillmentTasks, takeFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { fulfillmentSystemActor } from "../../core/commerce/FulfillmentTaskStatus.js";
import type { FulfillmentTaskId } from "../../core/commerce/model/Ids.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { commerceRuntime, confirmedOrder, forEachCommerceDialect, seedStore } from "./support.js";

const envelopes = async (db: SqlDatabase, type: string) => {
  const rows: ReadonlyArray<{ event: unknown }> = await db.db.selectFrom("outbox").select("event").where("type", "=", type).orderBy("seq").execute();
  return rows.map((row) => Schema.decodeUnknownSync(EventEnvelope)(typeof row.event === "string" ? JSON.parse(row.event) : row.event));
};

t.test("taking, assigning and releasing a fulfillment task publish FulfillmentTaskAssigned through the outbox with the move; a refused move publishes nothing", (t) =>
  forEachCommerceDialect(t, "task assignment events", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 10 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const [confirmed] = (await envelopes(db, "OrderConfirmed")).filter((e) => e.aggregate_id === placed.order.id);
    t.equal(await c.run(createFulfillmentTask(confirmed!)), true);
    const [task] = (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data;
    if (task === undefined) throw new Error("no task");
    const [ada, bob, stranger] = [randomUUID(), randomUUID(), randomUUID()];
    for (const userId of [ada, bob]) await c.run(grantStaffRole(ownerId, store.id, { userId, role: "warehouse_operator" }));
    const published = () => envelopes(db, "FulfillmentTaskAssigned");
    const code = (r: { ok: boolean; error?: unknown }) => (r.ok ? "ok" : (r.error as { code: string }).code);

    t.same(await published(), [], "opening a task assigns nobody");
    await c.run(takeFulfillmentTask(ada, task.id));
    const [taken] = await published();
    t.match(
      taken,
      { type: "FulfillmentTaskAssigned", schema_version: 1, tenant_id: store.id, aggregate_id: placed.order.id, actor_id: `staff:${ada}` },
      "a take is published on the store's stream, about the order",
    );
    t.same(taken?.data, { task_id: task.id, order_id: placed.order.id, assignee_id: ada }, "with the task, its order and its assignee only");
    t.equal(Schema.decodeUnknownEither(CommerceEvent)(taken)._tag, "Right", "through the module's event union");

    await c.run(takeFulfillmentTask(ada, task.id));
    t.equal(code(await c.attempt(takeFulfillmentTask(bob, task.id))), "fulfillment_task_taken");
    t.equal((await published()).length, 1, "taking one's own task again, or losing it, publishes nothing");

    await c.run(assignFulfillmentTask(ownerId, task.id, { assigneeId: bob, reason: "bob packs teapots" }));
    await c.run(assignFulfillmentTask(ownerId, task.id, { assigneeId: bob, reason: "again" }));
    t.equal(code(await c.attempt(assignFulfillmentTask(ownerId, task.id, { assigneeId: stranger, reason: "cover" }))), "validation_failed");
    t.equal(code(await c.attempt(assignFulfillmentTask(ownerId, "unknown-task" as FulfillmentTaskId, { assigneeId: ada, reason: "x" }))), "not_found");
    await c.run(assignFulfillmentTask(ownerId, task.id, { assigneeId: null, reason: "bob is off sick" }));
    const moves = await published();
    t.same(
      moves.map((e) => [e.actor_id, (e.data as { assignee_id: string | null }).assignee_id]),
      [
        [`staff:${ada}`, ada],
        [`staff:${ownerId}`, bob],
        [`staff:${ownerId}`, null],
      ],
      "the owner's assignment and release are published; an unchanged, refused or unknown one is not",
    );
    t.notOk(JSON.stringify(moves.map((e) => e.data)).includes("sick"), "the owner's reason stays on the timeline");

    // Of ten operators taking the released task at once, the one who holds it is published, once.
    const operators = Array.from({ length: 10 }, () => randomUUID());
    for (const userId of operators) await c.run(grantStaffRole(ownerId, store.id, { userId, role: "warehouse_operator" }));
    const results = await Promise.all(operators.map((userId) => c.attempt(takeFulfillmentTask(userId, task.id))));
    const winner = operators.find((_, i) => results[i]!.ok);
    t.same((await published()).slice(3).map((e) => (e.data as { assignee_id: string }).assignee_id), [winner], "the race's winner only");

    // The list each move left, trimmed: the unassigned ones (null) on a take, ada's on the reassignment, none on the release.
    const left = await envelopes(db, "FulfillmentTaskLeftList");
    t.same(
      left.map((e) => [e.actor_id, e.data]),
      [
        [fulfillmentSystemActor, { task_id: task.id, operator_id: null }],
        [fulfillmentSystemActor, { task_id: task.id, operator_id: ada }],
        [fulfillmentSystemActor, { task_id: task.id, operator_id: null }],
      ],
      "a task leaving a list is published naming neither who holds it now nor who moved it",
    );

    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "UPS", trackingNumber: `1Z-${randomUUID()}` }));
    t.equal(code(await c.attempt(assignFulfillmentTask(ownerId, task.id, { assigneeId: ada, reason: "late" }))), "fulfillment_task_closed");
    t.equal((await published()).length, 4, "a closed task's assignment publishes nothing");
  }),
);

/** Makes the database refuse outbox rows of `type` (a real failure inside the command's transaction). */
const refuseOutboxRows = async (db: SqlDatabase, type: string) => {
  if (db.dialect === "postgres") {
    await sql
      .raw(
        `CREATE FUNCTION test_refuse_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox refused'; END $$;
         CREATE TRIGGER test_refuse_outbox BEFORE INSERT ON outbox FOR EACH ROW WHEN (NEW.type = '${type}') EXECUTE FUNCTION test_refuse_outbox();`,
      )
      .execute(db.db);
  } else {
    await sql.raw(`CREATE TRIGGER test_refuse_outbox BEFORE INSERT ON outbox WHEN NEW.type = '${type}' BEGIN SELECT RAISE(ABORT, 'outbox refused'); END`).execute(db.db);
  }
};

/** Undoes {@link refuseOutboxRows}. */
const allowOutboxRows = async (db: SqlDatabase) => {
  const statements = db.dialect === "postgres" ? ["DROP TRIGGER test_refuse_outbox ON outbox", "DROP FUNCTION test_refuse_outbox()"] : ["DROP TRIGGER test_refuse_outbox"];
  for (const statement of statements) await sql.raw(statement).execute(db.db);
};

t.test("the assignment and its FulfillmentTaskAssigned commit together: an outbox row that cannot be written undoes the move", (t) =>
  forEachCommerceDialect(t, "task assignment atomicity", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 10 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const [confirmed] = (await envelopes(db, "OrderConfirmed")).filter((e) => e.aggregate_id === placed.order.id);
    await c.run(createFulfillmentTask(confirmed!));
    const [task] = (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data;
    if (task === undefined) throw new Error("no task");
    const ada = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: ada, role: "warehouse_operator" }));
    await refuseOutboxRows(db, "FulfillmentTaskAssigned");

    const outcome = (p: Promise<unknown>) => p.then(() => "done", () => "failed");
    t.equal(await outcome(c.run(takeFulfillmentTask(ada, task.id))), "failed", "the take fails with its outbox row");
    t.equal(await outcome(c.run(assignFulfillmentTask(ownerId, task.id, { assigneeId: ada, reason: "cover" }))), "failed", "so does the assignment");
    const held = await c.run(Effect.flatMap(OrdersRepository, (orders) => orders.findFulfillmentTask(task.id)));
    t.equal(held?.assigneeId, null, "the task is still unassigned");
    const staffView = await c.run(getOrder({ kind: "staff", userId: ownerId, role: "support" }, placed.order.id));
    t.same(staffView.timeline.filter((e) => e.kind.startsWith("fulfillment.")), [], "and no move is on the timeline");
  }),
);

t.test("a task's opening and its closing publish FulfillmentTaskStatusChanged with the change; an outbox row that cannot be written undoes it", (t) =>
  forEachCommerceDialect(t, "task status events", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 10 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const [confirmed] = (await envelopes(db, "OrderConfirmed")).filter((e) => e.aggregate_id === placed.order.id);
    const taskOf = () => c.run(Effect.flatMap(OrdersRepository, (orders) => orders.fulfillmentTaskOfOrder(placed.order.id)));
    const outcome = (p: Promise<unknown>) => p.then(() => "done", () => "failed");

    await refuseOutboxRows(db, "FulfillmentTaskStatusChanged");
    t.equal(await outcome(c.run(createFulfillmentTask(confirmed!))), "failed", "opening the task fails with its outbox row");
    t.equal(await taskOf(), null, "and leaves no task (nor the event's receipt: the relay delivers it again)");
    await allowOutboxRows(db);
    t.equal(await c.run(createFulfillmentTask(confirmed!)), true, "the redelivery opens it");
    const opened = await taskOf();
    if (opened === null) throw new Error("no task");

    await refuseOutboxRows(db, "FulfillmentTaskStatusChanged");
    const dispatch = () => c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `S-${randomUUID()}` }));
    t.equal(await outcome(dispatch()), "failed", "the dispatch that closes the task fails with its outbox row");
    t.equal((await taskOf())?.status, "open", "and the task stays open");
    await allowOutboxRows(db);
    t.equal(await outcome(dispatch()), "done");
    t.equal((await taskOf())?.status, "done");

    const published = await envelopes(db, "FulfillmentTaskStatusChanged");
    t.match(
      published.map((e) => ({ tenant: e.tenant_id, actor: e.actor_id, data: e.data })),
      [
        { tenant: store.id, actor: "system:commerce-fulfillment", data: { task_id: opened.id, order_id: placed.order.id, status: "open" } },
        { tenant: store.id, actor: "system:commerce-fulfillment", data: { task_id: opened.id, order_id: placed.order.id, status: "done" } },
      ],
      "the opening and the closing are published once each, by the system",
    );
    t.equal(published.length, 2);
  }),
);
