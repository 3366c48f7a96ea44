/** Stores (the tenants), their staff roles and fulfillment locations. */
import { Context, type Effect } from "effect";
import type { Location } from "../../core/commerce/model/Location.js";
import type { StaffRole, StaffRoleName } from "../../core/commerce/model/StaffRole.js";
import type { Store } from "../../core/commerce/model/Store.js";

export interface StoresRepository {
  readonly insertStore: (store: Store) => Effect.Effect<void>;
  readonly findStore: (id: string) => Effect.Effect<Store | null>;
  /** Grants a role; granting a role already held changes nothing. */
  readonly grantRole: (role: StaffRole) => Effect.Effect<void>;
  /** The roles `userId` holds in the store (none for a customer). */
  readonly rolesOf: (storeId: string, userId: string) => Effect.Effect<ReadonlyArray<StaffRoleName>>;
  readonly insertLocation: (location: Location) => Effect.Effect<void>;
  /** How many locations the store has (at most `maxLocationsPerStore`, core/commerce/CreateStore.ts). */
  readonly countLocations: (storeId: string) => Effect.Effect<number>;
  /** The location if it is the store's. */
  readonly findLocation: (storeId: string, id: string) => Effect.Effect<Location | null>;
}
export const StoresRepository = Context.GenericTag<StoresRepository>("domainkit/commerce/StoresRepository");
