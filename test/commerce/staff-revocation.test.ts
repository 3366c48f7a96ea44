/**
 * Revoking a staff role (core/commerce/RevokeStaffRole.ts): only the store's owner revokes; the
 * revocation is audited with its actor and reason; revoking a role not held changes and records
 * nothing; `access_changed` is published for the user after commit; a store always keeps an owner
 * — the core answers 409 last_store_owner and the database refuses it too (commerce migration 16),
 * so two owners revoking each other at once on parallel connections (Postgres) leave one; an
 * operator's take racing their revocation reads their roles held, so it is refused or released.
 * SQLite and Postgres.
 */
import { Effect, Schema } from "effect";
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import t from "tap";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { LastStoreOwner } from "../../core/commerce/Errors.js";
import { createFulfillmentTask, takeFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { revokeStaffRole } from "../../core/commerce/RevokeStaffRole.js";
import { Forbidden, NotFound, ValidationFailed } from "../../core/kernel/Errors.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { eventually } from "../support/eventually.js";
import { commerceRuntime, confirmedOrder, forEachCommerceDialect, seedStore, type CommerceRuntime } from "./support.js";
import type { StoreId } from "../../core/commerce/model/Ids.js";

const rolesOf = (c: CommerceRuntime, storeId: string, userId: string) => c.run(Effect.flatMap(StoresRepository, (s) => s.rolesOf(storeId, userId)));
const owners = (c: CommerceRuntime, storeId: string) => c.run(Effect.flatMap(StoresRepository, (s) => s.countOwners(storeId)));

t.test("a revoked role is audited with the owner and the reason, announced to the realtime bus; a role not held changes and records nothing", (t) =>
  forEachCommerceDialect(t, "revocation audit", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    const other = await seedStore(c);
    const ada = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: ada, role: "warehouse_operator" }));
    await c.run(grantStaffRole(ownerId, store.id, { userId: ada, role: "support" }));

    const refused = await c.attempt(revokeStaffRole(ada, store.id, { userId: ada, role: "support", reason: "self" }));
    t.ok(!refused.ok && refused.error instanceof Forbidden, "staff without owner may not revoke (403)");
    const stranger = await c.attempt(revokeStaffRole(other.ownerId, store.id, { userId: ada, role: "support", reason: "not mine" }));
    t.ok(!stranger.ok && stranger.error instanceof NotFound, "another store's owner learns nothing (404)");
    const blank = await c.attempt(revokeStaffRole(ownerId, store.id, { userId: ada, role: "support", reason: "  " }));
    t.ok(!blank.ok && blank.error instanceof ValidationFailed, "a reason is required (422)");
    t.same(await rolesOf(c, store.id, ada), ["warehouse_operator", "support"], "refusals change nothing");

    t.equal(await c.run(revokeStaffRole(ownerId, store.id, { userId: ada, role: "warehouse_operator", reason: "left the warehouse" })), true);
    t.same(await rolesOf(c, store.id, ada), ["support"], "the role is gone, the others stay");
    const audit = await c.run(Effect.flatMap(StoresRepository, (s) => s.revocationsOf(store.id, ada)));
    t.match(audit, [{ storeId: store.id, userId: ada, role: "warehouse_operator", actorId: `staff:${ownerId}`, reason: "left the warehouse" }], "audited with actor and reason");
    await eventually(async () => c.notices, (ns) => ns.some((n) => n.type === "access_changed" && n.userId === ada));
    t.match(c.notices.filter((n) => n.type === "access_changed"), [{ type: "access_changed", userId: ada }], "access_changed is published for the user");

    const noticesBefore = c.notices.length;
    t.equal(await c.run(revokeStaffRole(ownerId, store.id, { userId: ada, role: "warehouse_operator", reason: "again" })), false, "revoking again changes nothing");
    t.equal(await c.run(revokeStaffRole(ownerId, store.id, { userId: randomUUID(), role: "support", reason: "never staff" })), false);
    t.equal((await c.run(Effect.flatMap(StoresRepository, (s) => s.revocationsOf(store.id, ada)))).length, 1, "and records nothing");
    t.equal(c.notices.length, noticesBefore, "nor announces anything");

    const direct = await db.db
      .insertInto("shop_staff_revocations")
      .values({ id: randomUUID(), store_id: store.id, user_id: ada, role: "support", actor_id: "x", reason: "", created_at: new Date().toISOString() })
      .execute()
      .then(() => "accepted", () => "refused");
    t.equal(direct, "refused", "the audit keeps a reason");
    const erased = await db.db.deleteFrom("shop_staff_revocations").where("store_id", "=", store.id).execute().then(() => "accepted", () => "refused");
    t.equal(erased, "refused", "the audit is append-only");
  }),
);

t.test("the last owner of a store cannot lose owner: 409, and the database refuses it too", (t) =>
  forEachCommerceDialect(t, "last owner", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    const last = await c.attempt(revokeStaffRole(ownerId, store.id, { userId: ownerId, role: "owner", reason: "stepping down" }));
    t.ok(!last.ok && last.error instanceof LastStoreOwner, "409 last_store_owner");
    const direct = await db.db
      .deleteFrom("shop_staff_roles")
      .where("store_id", "=", store.id)
      .where("role", "=", "owner")
      .execute()
      .then(() => "accepted", () => "refused");
    t.equal(direct, "refused", "the database refuses to delete the last owner row written around the core");
    const moved = await db.db
      .updateTable("shop_staff_roles")
      .set({ role: "support" })
      .where("store_id", "=", store.id)
      .where("user_id", "=", ownerId)
      .where("role", "=", "owner")
      .execute()
      .then(() => "accepted", () => "refused");
    t.equal(moved, "refused", "nor turns it into another role");
    t.equal(await owners(c, store.id), 1);

    const second = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: second, role: "owner" }));
    t.equal(await c.run(revokeStaffRole(second, store.id, { userId: ownerId, role: "owner", reason: "sold the shop" })), true, "with two owners, one may go");
    t.equal(await owners(c, store.id), 1);
  }),
);

t.test("two owners revoking each other at once leave one owner (parallel connections on Postgres)", (t) =>
  forEachCommerceDialect(t, "owners race", async (t, db) => {
    const c = commerceRuntime(t, db);
    for (let round = 0; round < 5; round++) {
      const { ownerId, store } = await seedStore(c, { stock: 0 });
      const second = randomUUID();
      await c.run(grantStaffRole(ownerId, store.id, { userId: second, role: "owner" }));
      const outcomes = await Promise.all([
        c.attempt(revokeStaffRole(ownerId, store.id, { userId: second, role: "owner", reason: "mine" })),
        c.attempt(revokeStaffRole(second, store.id, { userId: ownerId, role: "owner", reason: "no, mine" })),
      ]);
      t.equal(outcomes.filter((o) => o.ok && o.value === true).length, 1, `round ${round}: exactly one revocation takes owner away`);
      t.ok(
        outcomes.every((o) => o.ok || o.error instanceof Forbidden || o.error instanceof NotFound || o.error instanceof LastStoreOwner),
        "the other is refused: its caller is no longer an owner",
      );
      t.equal(await owners(c, store.id), 1, `round ${round}: the store keeps one owner`);
    }
  }),
);

t.test("the database alone keeps an owner when two deletions of owner rows interleave (Postgres, two connections)", async (t) => {
  await forEachCommerceDialect(t, "owner rows interleaved", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c, { stock: 0 });
    const second = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: second, role: "owner" }));
    const deleteOwner = (userId: string) => sql`DELETE FROM shop_staff_roles WHERE store_id = ${sql.lit(store.id)} AND user_id = ${sql.lit(userId)} AND role = 'owner'`;
    if (db.dialect === "sqlite") {
      // One writer at a time: the second deletion comes after the first and finds no other owner.
      t.equal(await deleteOwner(second).execute(db.db).then(() => "accepted", () => "refused"), "accepted");
      t.equal(await deleteOwner(ownerId).execute(db.db).then(() => "accepted", () => "refused"), "refused");
      t.equal(await owners(c, store.id), 1);
      return;
    }
    // The first transaction deletes one owner row and waits, uncommitted; the second deletes the
    // other owner row on another connection; once it waits on the store's lock, the first commits.
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
    let firstDeleted!: () => void;
    const deletedInFirst = new Promise<void>((resolve) => (firstDeleted = resolve));
    const first = db.db.transaction().execute(async (trx) => {
      await deleteOwner(second).execute(trx);
      firstDeleted();
      await firstMayCommit;
    });
    await deletedInFirst;
    const secondOutcome = db.db
      .transaction()
      .execute((trx) => deleteOwner(ownerId).execute(trx))
      .then(() => "accepted", () => "refused");
    const waiting = await eventually(
      () =>
        sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ${`%${store.id as StoreId}%`}`
          .execute(db.db)
          .then((r) => Number(r.rows[0]?.n ?? 0)),
      (n) => n >= 1,
    );
    t.equal(waiting, 1, "the second deletion waits on the first");
    commitFirst();
    await first;
    t.equal(await secondOutcome, "refused", "the second finds no other owner left and is refused");
    t.equal(await owners(c, store.id), 1, "the store keeps one owner");
  });
});

t.test("a take racing the revocation of its operator either comes first (and its task is released) or is refused (Postgres, two connections)", (t) =>
  forEachCommerceDialect(t, "take against revocation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c);
    const ada = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: ada, role: "warehouse_operator" }));
    await confirmedOrder(c, store.id, variant.id);
    const row = await db.db.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").executeTakeFirstOrThrow();
    const envelope = Schema.decodeUnknownSync(EventEnvelope)(typeof row.event === "string" ? JSON.parse(row.event) : row.event);
    t.equal(await c.run(createFulfillmentTask(envelope)), true);
    const [task] = await c.run(Effect.flatMap(OrdersRepository, (o) => o.fulfillmentTasks(store.id, { status: "open", afterId: null, limit: 10 })));
    const deleteRole = sql`DELETE FROM shop_staff_roles WHERE store_id = ${sql.lit(store.id)} AND user_id = ${sql.lit(ada)} AND role = 'warehouse_operator'`;
    if (db.dialect === "sqlite") {
      // One writer at a time: the take comes after the revocation and sees it.
      await deleteRole.execute(db.db);
      const take = await c.attempt(takeFulfillmentTask(ada, task!.id));
      t.ok(!take.ok && take.error instanceof NotFound, "the revoked operator's take is refused");
    } else {
      // The revocation has deleted the role, uncommitted; the operator's take (its access read
      // before) reads the role held, so it waits, then sees the role gone.
      let commitRevocation!: () => void;
      const mayCommit = new Promise<void>((resolve) => (commitRevocation = resolve));
      let deleted!: () => void;
      const roleDeleted = new Promise<void>((resolve) => (deleted = resolve));
      const revocation = db.db.transaction().execute(async (trx) => {
        await deleteRole.execute(trx);
        deleted();
        await mayCommit;
      });
      await roleDeleted;
      const take = c.attempt(takeFulfillmentTask(ada, task!.id));
      const waiting = await eventually(
        () =>
          sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%shop_staff_roles%'`
            .execute(db.db)
            .then((r) => Number(r.rows[0]?.n ?? 0)),
        (n) => n >= 1,
      );
      t.equal(waiting, 1, "the take waits for the revocation");
      commitRevocation();
      await revocation;
      const taken = await take;
      t.ok(!taken.ok && taken.error instanceof NotFound, "then is refused: the operator holds no role");
    }
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findFulfillmentTask(task!.id))))?.assigneeId, null, "the task stays unassigned");
  }),
);

/**
 * Spec (Authentication 2: staff act by role in their store; a revoked role stops working at once).
 * A grant runs under the store's lock and re-checks its owner there, as a revocation does: an
 * owner whose `owner` role is revoked between their grant's first check and its write grants
 * nothing (403), and the user they named holds no role.
 */
t.test("an owner revoked while granting grants nothing: the grant re-checks its owner under the store's lock", (t) =>
  forEachCommerceDialect(t, "grant vs revocation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store } = await seedStore(c);
    const second = randomUUID();
    await c.run(grantStaffRole(ownerId, store.id, { userId: second, role: "owner" }));
    const stores = await c.run(StoresRepository);
    let revokedMeanwhile = false;
    const revokingBetween = StoresRepository.of({
      ...stores,
      rolesOf: (storeId, userId) =>
        Effect.tap(stores.rolesOf(storeId, userId), () =>
          revokedMeanwhile || userId !== ownerId
            ? Effect.void
            : Effect.promise(async () => {
                revokedMeanwhile = true;
                await c.run(revokeStaffRole(second, store.id, { userId: ownerId, role: "owner", reason: "left the company" }));
              }),
        ),
    });
    const newcomer = randomUUID();
    const granted = await c.attempt(Effect.provideService(grantStaffRole(ownerId, store.id, { userId: newcomer, role: "support" }), StoresRepository, revokingBetween));
    t.ok(revokedMeanwhile, "the revocation committed between the grant's first check and its write");
    t.match(granted.ok ? null : granted.error, { code: "forbidden" }, "the grant is refused");
    t.same(await c.run(stores.rolesOf(store.id, newcomer)), [], "the newcomer holds no role");
  }),
);
