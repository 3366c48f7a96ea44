/** The StoresRepository port over `shop_stores`, `shop_staff_roles` (revocations audited in `shop_staff_revocations`) and `shop_locations`. */
import { Effect } from "effect";
import { Location } from "../../../core/commerce/model/Location.js";
import { StaffRevocation, StaffRole, StaffRoleName } from "../../../core/commerce/model/StaffRole.js";
import { Store } from "../../../core/commerce/model/Store.js";
import type { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const isRole = StaffRoleName.literals;

/** Builds the store repository over `db`. */
export const makeSqlStoresRepository = (db: SqlDatabase): StoresRepository => {
  const f = featuresFor(db);
  const stores = rowCodec(Store, f);
  const roles = rowCodec(StaffRole, f);
  const locations = rowCodec(Location, f);
  const revocations = rowCodec(StaffRevocation, f);
  const insertRevocation = compiledInsert("shop_staff_revocations", revocations);
  const deleteRole = compiledOnce<{ storeId: string; userId: string; role: string }>((ex, p) =>
    ex.deleteFrom("shop_staff_roles").where("store_id", "=", p("storeId")).where("user_id", "=", p("userId")).where("role", "=", p("role")),
  );
  const selectStoreLocked = compiledOnce<{ id: string }>((ex, p) => lockRow(db, ex.selectFrom("shop_stores").select("id").where("id", "=", p("id")), true));
  // The store and staff-role reads of every shop request, and the store's writes, compiled once.
  const insertStore = compiledInsert("shop_stores", stores);
  const selectStore = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_stores").selectAll().where("id", "=", p("id")));
  const insertRoleIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_staff_roles")
      .values(slotsOf(roles.columns, p))
      .onConflict((oc) => oc.columns(["store_id", "user_id", "role"]).doNothing()),
  );
  const selectRoles = compiledOnce<{ storeId: string; userId: string }>((ex, p) =>
    ex.selectFrom("shop_staff_roles").select("role").where("store_id", "=", p("storeId")).where("user_id", "=", p("userId")),
  );
  const selectRolesHeld = compiledOnce<{ storeId: string; userId: string }>((ex, p) =>
    lockRow(db, ex.selectFrom("shop_staff_roles").select("role").where("store_id", "=", p("storeId")).where("user_id", "=", p("userId")), true, "share"),
  );
  const insertLocation = compiledInsert("shop_locations", locations);
  const selectLocation = compiledOnce<{ storeId: string; id: string }>((ex, p) =>
    ex.selectFrom("shop_locations").selectAll().where("store_id", "=", p("storeId")).where("id", "=", p("id")),
  );
  return {
    insertStore: (store) =>
      runStatement(db, insertStore, store).pipe(
        Effect.asVoid,
        withSpan("StoresRepository.insertStore"),
      ),
    findStore: (id) =>
      runStatement(db, selectStore, { id }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : stores.fromRow(r)))),
    grantRole: (role) =>
      runStatement(db, insertRoleIfNew, roles.toRow(role)).pipe(Effect.asVoid, withSpan("StoresRepository.grantRole")),
    revokeRole: (revocation) =>
      Effect.gen(function* () {
        const deleted = yield* runStatement(db, deleteRole, { storeId: revocation.storeId, userId: revocation.userId, role: revocation.role });
        if (toNumber(deleted.numAffectedRows ?? 0) === 0) return false;
        yield* runStatement(db, insertRevocation, revocation);
        return true;
      }).pipe(withSpan("StoresRepository.revokeRole")),
    revocationsOf: (storeId, userId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("shop_staff_revocations").selectAll().where("store_id", "=", storeId).where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute(),
      ).pipe(Effect.map((rows) => rows.map(revocations.fromRow))),
    countOwners: (storeId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("shop_staff_roles")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("store_id", "=", storeId)
          .where("role", "=", "owner")
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    lockStore: (storeId) => runStatement(db, selectStoreLocked, { id: storeId }).pipe(Effect.asVoid),
    holdRolesOf: (storeId, userId) =>
      runStatement(db, selectRolesHeld, { storeId, userId }).pipe(
        Effect.map(({ rows }) => isRole.filter((role) => rows.some((r) => r.role === role))),
      ),
    listRoles: ({ storeId, after, limit }) =>
      runQuery(db, (ex) => {
        // The primary key (store_id, user_id, role) serves the seek.
        let q = ex.selectFrom("shop_staff_roles").selectAll().where("store_id", "=", storeId);
        if (after !== undefined) {
          q = q.where((eb) => eb.or([eb("user_id", ">", after.userId), eb.and([eb("user_id", "=", after.userId), eb("role", ">", after.role)])]));
        }
        return q.orderBy("user_id").orderBy("role").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => roles.fromRow(r)))),
    rolesOf: (storeId, userId) =>
      runStatement(db, selectRoles, { storeId, userId }).pipe(
        Effect.map(({ rows }) => isRole.filter((role) => rows.some((r) => r.role === role))),
      ),
    insertLocation: (location) => runStatement(db, insertLocation, location).pipe(Effect.asVoid),
    countLocations: (storeId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("shop_locations").select((eb) => eb.fn.countAll().as("n")).where("store_id", "=", storeId).executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    findLocation: (storeId, id) =>
      runStatement(db, selectLocation, { storeId, id }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : locations.fromRow(r))),
      ),
  };
};
