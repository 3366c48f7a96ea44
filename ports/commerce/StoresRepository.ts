/** Stores (the tenants), their staff roles and fulfillment locations. */
import { Context, type Effect } from "effect";
import type { Location } from "../../core/commerce/model/Location.js";
import type { StaffRevocation, StaffRole, StaffRoleName } from "../../core/commerce/model/StaffRole.js";
import type { Store } from "../../core/commerce/model/Store.js";

export interface StoresRepository {
  readonly insertStore: (store: Store) => Effect.Effect<void>;
  readonly findStore: (id: string) => Effect.Effect<Store | null>;
  /** Grants a role; granting a role already held changes nothing. */
  readonly grantRole: (role: StaffRole) => Effect.Effect<void>;
  /**
   * Takes the role away and, when the user held it, records `revocation` (its audit) with it;
   * answers whether the user held it (revoking a role not held changes nothing). The database
   * refuses to take the store's last `owner` (commerce migration 16).
   */
  readonly revokeRole: (revocation: StaffRevocation) => Effect.Effect<boolean>;
  /** The revocations of `userId`'s roles in the store, oldest first. */
  readonly revocationsOf: (storeId: string, userId: string) => Effect.Effect<ReadonlyArray<StaffRevocation>>;
  /** How many users hold `owner` in the store. */
  readonly countOwners: (storeId: string) => Effect.Effect<number>;
  /** Holds the store row until the transaction ends (Postgres FOR UPDATE; SQLite writers are serialized). */
  readonly lockStore: (storeId: string) => Effect.Effect<void>;
  /**
   * The roles `userId` holds in the store, their rows held until the transaction ends (Postgres
   * FOR SHARE; SQLite writers are serialized): a revocation of one waits for this transaction, and
   * one already made is seen. Commands that give a user work by their role read it so.
   */
  readonly holdRolesOf: (storeId: string, userId: string) => Effect.Effect<ReadonlyArray<StaffRoleName>>;
  /**
   * The store's staff roles ordered by user id, then role, strictly after `after` (a user id and
   * role), at most `limit`.
   */
  readonly listRoles: (req: {
    readonly storeId: string;
    readonly after?: { readonly userId: string; readonly role: string } | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<StaffRole>>;
  /** The roles `userId` holds in the store (none for a customer). */
  readonly rolesOf: (storeId: string, userId: string) => Effect.Effect<ReadonlyArray<StaffRoleName>>;
  readonly insertLocation: (location: Location) => Effect.Effect<void>;
  /** How many locations the store has (at most `maxLocationsPerStore`, core/commerce/CreateStore.ts). */
  readonly countLocations: (storeId: string) => Effect.Effect<number>;
  /** The location if it is the store's. */
  readonly findLocation: (storeId: string, id: string) => Effect.Effect<Location | null>;
}
export const StoresRepository = Context.GenericTag<StoresRepository>("domainkit/commerce/StoresRepository");
