/**
 * A staff role held by a user in one store. The creator holds `owner` and every other role;
 * `catalog_manager` (products, variants, prices, promotions), `warehouse_operator` (locations,
 * stock, fulfillment), `support` (scoped order view, audited refunds and overrides).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { StoreId } from "./Ids.js";

export const StaffRoleName = Schema.Literal("owner", "catalog_manager", "warehouse_operator", "support");
export type StaffRoleName = typeof StaffRoleName.Type;

/** Every role a store owner holds. */
export const allStaffRoles: ReadonlyArray<StaffRoleName> = ["owner", "catalog_manager", "warehouse_operator", "support"];

export const StaffRole = Schema.Struct({
  storeId: StoreId,
  userId: Schema.String,
  role: StaffRoleName,
  grantedBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type StaffRole = typeof StaffRole.Type;

export const StaffRoleWire = wireShape(StaffRole);
