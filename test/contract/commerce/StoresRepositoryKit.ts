/**
 * Contract kit for the e-commerce StoresRepository: a store reads back as written; a role is
 * granted once however often it is granted, and the roles a user holds are answered per store
 * (holding a role in one store grants nothing in another); a location is found only through its
 * own store (tenant scoping: another store's location id answers null).
 */
import { Effect } from "effect";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
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
