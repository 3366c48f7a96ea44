/** The StoresRepository port over `shop_stores`, `shop_staff_roles` and `shop_locations`. */
import { Effect } from "effect";
import { Location } from "../../../core/commerce/model/Location.js";
import { StaffRole, StaffRoleName } from "../../../core/commerce/model/StaffRole.js";
import { Store } from "../../../core/commerce/model/Store.js";
import type { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const isRole = StaffRoleName.literals;

/** Builds the store repository over `db`. */
export const makeSqlStoresRepository = (db: SqlDatabase): StoresRepository => {
  const f = featuresFor(db);
  const stores = rowCodec(Store, f);
  const roles = rowCodec(StaffRole, f);
  const locations = rowCodec(Location, f);
  return {
    insertStore: (store) =>
      runQuery(db, (ex) => ex.insertInto("shop_stores").values(stores.toRow(store)).execute()).pipe(
        Effect.asVoid,
        withSpan("StoresRepository.insertStore"),
      ),
    findStore: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_stores").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : stores.fromRow(r))),
      ),
    grantRole: (role) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("shop_staff_roles")
          .values(roles.toRow(role))
          .onConflict((oc) => oc.columns(["store_id", "user_id", "role"]).doNothing())
          .execute(),
      ).pipe(Effect.asVoid, withSpan("StoresRepository.grantRole")),
    rolesOf: (storeId, userId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("shop_staff_roles").select("role").where("store_id", "=", storeId).where("user_id", "=", userId).execute(),
      ).pipe(Effect.map((rows) => isRole.filter((role) => rows.some((r) => r.role === role)))),
    insertLocation: (location) =>
      runQuery(db, (ex) => ex.insertInto("shop_locations").values(locations.toRow(location)).execute()).pipe(Effect.asVoid),
    findLocation: (storeId, id) =>
      runQuery(db, (ex) =>
        ex.selectFrom("shop_locations").selectAll().where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : locations.fromRow(r)))),
  };
};
