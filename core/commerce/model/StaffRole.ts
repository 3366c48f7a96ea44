/**
 * A staff role held by a user in one store. The creator holds `owner` and every other role;
 * `catalog_manager` (products, variants, prices, promotions), `warehouse_operator` (locations,
 * stock, fulfillment), `support` (scoped order view, audited refunds and overrides).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { StaffRevocationId, StoreId } from "./Ids.js";

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

/**
 * The audit of one revocation that took a role away: who lost which role, the owner who revoked
 * it (`actorId`, `staff:<user id>`) and why. Revoking a role not held records nothing.
 */
export const StaffRevocation = Schema.Struct({
  id: StaffRevocationId,
  storeId: StoreId,
  userId: Schema.String,
  role: StaffRoleName,
  actorId: Schema.String,
  reason: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type StaffRevocation = typeof StaffRevocation.Type;
