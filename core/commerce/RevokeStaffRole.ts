/**
 * Command: the store's owner revokes a staff role of a user (spec, Authentication 2: staff act by
 * role in their store, so a role taken away must stop working at once). Idempotent: revoking a
 * role the user does not hold succeeds and changes nothing. In one transaction, under the store's
 * lock (so two owners revoking each other at once are decided one after the other):
 * - the caller is re-checked as an owner of the store;
 * - the store's last owner cannot lose `owner` (409 last_store_owner; the database holds it too,
 *   commerce migration 16);
 * - the role row goes and the revocation is audited (actor `staff:<owner>`, reason), as stock
 *   adjustments are;
 * - when the user is left with neither `warehouse_operator` nor `owner`, their open fulfillment
 *   tasks are released (timeline, FulfillmentTaskAssigned with assignee null).
 * After commit `access_changed` is published for the user, so their live realtime subscriptions
 * (the store's and its orders' channels) are re-checked at once; their next HTTP request reads
 * their roles again and is refused as any non-staff user's.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { requireStaffRole } from "./Access.js";
import { LastStoreOwner } from "./Errors.js";
import { releaseTasksOf } from "./FulfillmentTasks.js";
import { StaffRevocationId, type StoreId } from "./model/Ids.js";
import type { StaffRoleName } from "./model/StaffRole.js";

export interface RevokeStaffRoleInput {
  readonly userId: string;
  readonly role: StaffRoleName;
  /** Why (1 to 1000 characters), kept with the revocation and on the timeline of released tasks. */
  readonly reason: string;
}

/**
 * After commit: tells every process that `userId`'s access changed, so each of their live
 * subscriptions is re-authorized (and dropped where refused). A realtime outage never fails the
 * revocation: HTTP reads check the roles at the source anyway.
 */
const announceAccessChanged = (userId: string): Effect.Effect<void, never, RealtimeBus> =>
  Effect.flatMap(RealtimeBus, (bus) => bus.publish({ type: "access_changed", userId })).pipe(
    Effect.timeout("2 seconds"),
    Effect.catchAllCause(() => Effect.void),
  );

/** Answers whether a role was taken away (false: the user did not hold it, nothing changed). */
export const revokeStaffRole = (ownerId: string, storeId: StoreId, input: RevokeStaffRoleInput) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, ownerId, "owner");
    const reason = input.reason.trim();
    if (reason.length === 0 || input.reason.length > 1000) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "1 to 1000 characters: staff actions need a reason" }] }));
    }
    const stores = yield* StoresRepository;
    const id = StaffRevocationId.make(yield* (yield* Ids).next);
    const actorId = `staff:${ownerId}`;
    const revoked = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* stores.lockStore(storeId);
        // Under the lock: an owner whose own role was revoked meanwhile revokes nothing.
        yield* requireStaffRole(storeId, ownerId, "owner");
        const held = yield* stores.rolesOf(storeId, input.userId);
        if (!held.includes(input.role)) return false;
        if (input.role === "owner" && (yield* stores.countOwners(storeId)) <= 1) {
          return yield* Effect.fail(new LastStoreOwner({ storeId, userId: input.userId }));
        }
        const at = yield* now;
        if (!(yield* stores.revokeRole({ id, storeId, userId: input.userId, role: input.role, actorId, reason, createdAt: at }))) return false;
        const left = held.filter((role) => role !== input.role);
        if (!left.includes("warehouse_operator") && !left.includes("owner")) yield* releaseTasksOf(storeId, input.userId, actorId, reason);
        return true;
      }),
    );
    if (revoked) yield* announceAccessChanged(input.userId);
    return revoked;
  }).pipe(withSpan("commerce.revokeStaffRole"));
