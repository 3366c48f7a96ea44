/**
 * Contract kit for the e-commerce StoresRepository: a store reads back as written; a role is
 * granted once however often it is granted, and the roles a user holds are answered per store
 * (holding a role in one store grants nothing in another); a location is found only through its
 * own store (tenant scoping: another store's location id answers null). A revoked role is gone and
 * its revocation audited, once; revoking a role not held answers false and records nothing; the
 * store's last owner row is refused (commerce migration 16 for the SQL adapter).
 */
import { Effect } from "effect";
import { StaffRevocationId } from "../../../core/commerce/model/Ids.js";
import type { StaffRoleName } from "../../../core/commerce/model/StaffRole.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, exitOf, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, storeRecord, uid } from "./fixtures.js";

/** The ports this kit needs. */
export type StoresKitPorts = StoresRepository;

const stores = <A>(f: (r: StoresRepository) => Effect.Effect<A>) => Effect.flatMap(StoresRepository, f);

/** The cases of the stores kit. */
export const storesCases: ReadonlyArray<KitCase<StoresKitPorts>> = [
  {
    name: "stores: a store reads back as written; an unknown id answers null",
    run: async (t, run) => {
      await run(stores((r) => r.insertStore(storeRecord(1))));
      t.same(await run(stores((r) => r.findStore(kitId.store(1)))), storeRecord(1));
      t.equal(await run(stores((r) => r.findStore(kitId.store(9)))), null);
    },
  },
  {
    name: "stores: a role is held once however often it is granted, and only in the store that granted it",
    run: async (t, run) => {
      await run(stores((r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))])));
      const clerk = uid("user", 7);
      const grant = (storeN: number, role: "support" | "warehouse_operator", n: number) =>
        stores((r) => r.grantRole({ storeId: kitId.store(storeN), userId: clerk, role, grantedBy: uid("user", 1), createdAt: at(n) }));
      await run(grant(1, "support", 1));
      await run(grant(1, "support", 2));
      await run(grant(1, "warehouse_operator", 3));
      t.same([...(await run(stores((r) => r.rolesOf(kitId.store(1), clerk))))].sort(), ["support", "warehouse_operator"], "each role once");
      t.same(await run(stores((r) => r.rolesOf(kitId.store(2), clerk))), [], "nothing in another store");
      t.same(await run(stores((r) => r.rolesOf(kitId.store(1), uid("user", 8)))), [], "nothing for a customer");
      t.same([...(await run(stores((r) => r.holdRolesOf(kitId.store(1), clerk))))].sort(), ["support", "warehouse_operator"], "held, the same roles");
      t.same(await run(stores((r) => r.holdRolesOf(kitId.store(2), clerk))), []);
    },
  },
  {
    name: "stores: a revoked role is gone and audited once; a role not held answers false; owners are counted; the last owner stays",
    run: async (t, run) => {
      await run(stores((r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))])));
      const owner = uid("user", 1);
      const clerk = uid("user", 7);
      const grant = (storeN: number, userId: string, role: "owner" | "support" | "warehouse_operator") =>
        stores((r) => r.grantRole({ storeId: kitId.store(storeN), userId, role, grantedBy: owner, createdAt: at(1) }));
      await run(grant(1, owner, "owner"));
      await run(grant(1, clerk, "support"));
      await run(grant(1, clerk, "warehouse_operator"));
      await run(grant(2, clerk, "support"));
      const revocation = (n: number, role: "owner" | "support" | "warehouse_operator", userId = clerk) => ({
        id: StaffRevocationId.make(uid("revocation", n)),
        storeId: kitId.store(1),
        userId,
        role,
        actorId: `staff:${owner}`,
        reason: `reason ${n}`,
        createdAt: at(n),
      });
      t.equal(await run(stores((r) => r.revokeRole(revocation(2, "support")))), true, "a held role is revoked");
      t.same(await run(stores((r) => r.rolesOf(kitId.store(1), clerk))), ["warehouse_operator"], "the other roles stay");
      t.same(await run(stores((r) => r.rolesOf(kitId.store(2), clerk))), ["support"], "another store's role stays");
      t.equal(await run(stores((r) => r.revokeRole(revocation(3, "support")))), false, "revoking a role not held answers false");
      t.same(await run(stores((r) => r.revocationsOf(kitId.store(1), clerk))), [revocation(2, "support")], "audited once, as written");
      t.same(await run(stores((r) => r.revocationsOf(kitId.store(2), clerk))), [], "in its own store only");
      t.equal(await run(stores((r) => r.countOwners(kitId.store(1)))), 1);
      const last = await run(exitOf(stores((r) => r.revokeRole(revocation(4, "owner", owner)))));
      t.equal(last._tag, "Failure", "the last owner row is refused");
      t.same(await run(stores((r) => r.rolesOf(kitId.store(1), owner))), ["owner"], "and stays");
      await run(grant(1, clerk, "owner"));
      t.equal(await run(stores((r) => r.countOwners(kitId.store(1)))), 2);
      t.equal(await run(stores((r) => Effect.zipRight(r.lockStore(kitId.store(1)), r.revokeRole(revocation(5, "owner", owner))))), true, "with another owner, one may go");
      t.equal(await run(stores((r) => r.countOwners(kitId.store(1)))), 1);
    },
  },
  {
    name: "stores: a location is found only through its own store",
    run: async (t, run) => {
      await run(stores((r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))])));
      const location = { id: kitId.loc(1), storeId: kitId.store(1), name: "Kit warehouse", createdAt: T0 };
      await run(stores((r) => r.insertLocation(location)));
      t.same(await run(stores((r) => r.findLocation(kitId.store(1), kitId.loc(1)))), location);
      t.equal(await run(stores((r) => r.findLocation(kitId.store(2), kitId.loc(1)))), null, "another store's location is not found");
    },
  },
  {
    name: "stores: a store's roles are listed by user id then role, in keyset pages, its own only",
    run: async (t, run) => {
      await run(stores((r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))])));
      const grant = (storeN: number, userN: number, role: StaffRoleName) =>
        run(stores((r) => r.grantRole({ storeId: kitId.store(storeN), userId: uid("user", userN), role, grantedBy: uid("user", 1), createdAt: at(1) })));
      await grant(1, 3, "support");
      await grant(1, 2, "warehouse_operator");
      await grant(1, 2, "catalog_manager");
      await grant(2, 4, "support");
      const list = (after?: { userId: string; role: string }, limit = 10) =>
        run(stores((r) => r.listRoles({ storeId: kitId.store(1), ...(after === undefined ? {} : { after }), limit }))).then((rows) => rows.map((row) => [row.userId, row.role]));
      t.same(await list(), [[uid("user", 2), "catalog_manager"], [uid("user", 2), "warehouse_operator"], [uid("user", 3), "support"]], "by user id, then role; another store's not");
      t.same(await list(undefined, 1), [[uid("user", 2), "catalog_manager"]], "at most `limit`");
      t.same(await list({ userId: uid("user", 2), role: "catalog_manager" }), [[uid("user", 2), "warehouse_operator"], [uid("user", 3), "support"]], "strictly after a user and role");
      t.same(await list({ userId: uid("user", 3), role: "support" }), [], "nothing after the last");
    },
  },
  {
    name: "stores: a store's locations are counted, its own only",
    run: async (t, run) => {
      await run(stores((r) => Effect.all([r.insertStore(storeRecord(1)), r.insertStore(storeRecord(2))])));
      t.equal(await run(stores((r) => r.countLocations(kitId.store(1)))), 0, "none yet");
      for (const n of [1, 2, 3]) await run(stores((r) => r.insertLocation({ id: kitId.loc(n), storeId: kitId.store(n === 3 ? 2 : 1), name: `Kit ${n}`, createdAt: T0 })));
      t.equal(await run(stores((r) => r.countLocations(kitId.store(1)))), 2);
      t.equal(await run(stores((r) => r.countLocations(kitId.store(2)))), 1);
    },
  },
];

/** Runs the stores kit against the adapter `options.factory` makes. */
export const storesRepositorySuite = (options: SuiteOptions<StoresKitPorts>): Promise<unknown> => runCases(options, storesCases);
