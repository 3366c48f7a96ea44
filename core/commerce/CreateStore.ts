/**
 * Command: create a store. The creator becomes its owner and holds every staff role; the store
 * is provisioned a payments merchant of its own under the stable reference `store:<id>` —
 * outside the transaction, before the store row exists, so a retry with the same id provisions
 * the same merchant and a store never exists without one.
 */
import { Effect, Schema } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { pageFrom } from "../kernel/Page.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { isCurrency } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import { Transactions } from "../../ports/Transactions.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { allStaffRoles, type StaffRoleName } from "./model/StaffRole.js";
import type { Store } from "./model/Store.js";
import type { Location } from "./model/Location.js";
import { requireStaffRole } from "./Access.js";
import { withSpan } from "../kernel/Span.js";
import { LocationId, StoreId } from "./model/Ids.js";

export interface CreateStoreInput {
  readonly name: string;
  readonly currency: string;
  /** Tax rate in basis points (0 to 10,000); default 0. */
  readonly taxRateBasisPoints?: number;
}

export const createStore = (userId: string, input: CreateStoreInput) =>
  Effect.gen(function* () {
    const errors = [
      ...(input.name.trim().length === 0 || input.name.length > 200 ? [{ path: "name", message: "1 to 200 characters" }] : []),
      ...(isCurrency(input.currency) ? [] : [{ path: "currency", message: "an ISO 4217 code" }]),
      ...(input.taxRateBasisPoints !== undefined && !(Number.isInteger(input.taxRateBasisPoints) && input.taxRateBasisPoints >= 0 && input.taxRateBasisPoints <= 10_000)
        ? [{ path: "tax_rate_basis_points", message: "an integer from 0 to 10000" }]
        : []),
    ];
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const id = StoreId.make(yield* (yield* Ids).next);
    const merchant = yield* (yield* MerchantProvisioning).provision({ name: input.name, reference: `store:${id}` });
    const at = yield* now;
    const store: Store = {
      id,
      name: input.name,
      currency: input.currency,
      ownerId: userId,
      merchantId: merchant.merchantId,
      taxRateBasisPoints: input.taxRateBasisPoints ?? 0,
      createdAt: at,
    };
    const stores = yield* StoresRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* stores.insertStore(store);
        for (const role of allStaffRoles) yield* stores.grantRole({ storeId: id, userId, role, grantedBy: userId, createdAt: at });
      }),
    );
    return store;
  }).pipe(withSpan("commerce.createStore"));

/** The cursor of the staff list: the last row's user id and role. */
const StaffCursorKey = Schema.Tuple(Schema.String, Schema.String);

/** Query: the store's staff roles (owner), a keyset page by user id and role. */
export const listStaffRoles = (ownerId: string, storeId: StoreId, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, ownerId, "owner");
    const after = page.cursor === undefined ? undefined : yield* decodeCursor(StaffCursorKey, page.cursor);
    const rows = yield* (yield* StoresRepository).listRoles({
      storeId,
      ...(after === undefined ? {} : { after: { userId: after[0], role: after[1] } }),
      limit: page.limit + 1,
    });
    return pageFrom(rows, page.limit, (role) => [role.userId, role.role]);
  }).pipe(withSpan("commerce.listStaffRoles"));


/**
 * Command: the owner grants a staff role. Under the store's lock, as a revocation: an owner whose
 * own role was revoked meanwhile grants nothing.
 */
export const grantStaffRole = (ownerId: string, storeId: StoreId, grant: { readonly userId: string; readonly role: StaffRoleName }) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, ownerId, "owner");
    const stores = yield* StoresRepository;
    const at = yield* now;
    const role = { storeId, userId: grant.userId, role: grant.role, grantedBy: ownerId, createdAt: at };
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* stores.lockStore(storeId);
        yield* requireStaffRole(storeId, ownerId, "owner");
        yield* stores.grantRole(role);
      }),
    );
    return role;
  }).pipe(withSpan("commerce.grantStaffRole"));

/**
 * The most fulfillment locations a store has: a variant's stock is read at every location at once
 * (its stock answer, checkout's reservation), so this bounds them. The database holds it too
 * (commerce migration 15).
 */
export const maxLocationsPerStore = 200;

/** Command: a warehouse operator adds a fulfillment location (422 past {@link maxLocationsPerStore}). */
export const createLocation = (userId: string, storeId: StoreId, input: { readonly name: string }) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, userId, "warehouse_operator");
    if (input.name.trim().length === 0 || input.name.length > 200) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: "1 to 200 characters" }] }));
    }
    const location: Location = { id: LocationId.make(yield* (yield* Ids).next), storeId, name: input.name, createdAt: yield* now };
    const stores = yield* StoresRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        if ((yield* stores.countLocations(storeId)) >= maxLocationsPerStore) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: `a store has at most ${maxLocationsPerStore} locations` }] }));
        }
        yield* stores.insertLocation(location);
        return location;
      }),
    );
  }).pipe(withSpan("commerce.createLocation"));
