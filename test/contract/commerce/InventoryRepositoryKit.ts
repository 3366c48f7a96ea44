/**
 * Contract kit for the e-commerce InventoryRepository: `reserve` succeeds only while enough is
 * available (on_hand − reserved), so `reserved` never exceeds `on_hand` — also when many
 * reservations race on separate connections; `adjust` creates a stock row at 0 and refuses to
 * push on_hand below reserved (or below 0); a reservation moves out of a status once (the
 * conditional change answers false the second time); `consume` lowers on_hand and reserved
 * together; `unreserve` gives back what a release frees. Stores, variants and orders are written
 * through the module's other repositories (the references the tables require).
 */
import { Effect } from "effect";
import type { Reservation } from "../../../core/commerce/model/Reservation.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { kitId, orderRecord, seedStore } from "./fixtures.js";

/** The ports this kit needs. */
export type InventoryKitPorts = InventoryRepository | StoresRepository | CatalogRepository | OrdersRepository;

const store = kitId.store(1);
const location = kitId.loc(1);
const variant = kitId.var(1);

const inventory = <A>(f: (r: InventoryRepository) => Effect.Effect<A>) => Effect.flatMap(InventoryRepository, f);

/** A store with one location and one variant, without stock. */
const seed = seedStore(1);

/** `seed` with `onHand` units at the location. */
const seedWithStock = (onHand: number) =>
  Effect.zipRight(seed, inventory((r) => r.adjust({ storeId: store, variantId: variant, locationId: location, delta: onHand, now: at(1) })));

/** Order `n` (pending), so reservations can reference it. */
const order = (n: number) => orderRecord(n);

const reservation = (n: number, quantity: number): Reservation => ({
  id: kitId.res(n),
  storeId: store,
  orderId: kitId.order(n),
  variantId: variant,
  locationId: location,
  quantity,
  status: "active",
  expiresAt: at(900_000),
  createdAt: at(2),
  updatedAt: at(2),
});

const stock = inventory((r) => r.findStock(variant, location));

/** The cases of the inventory kit. */
export const inventoryCases: ReadonlyArray<KitCase<InventoryKitPorts>> = [
  {
    name: "inventory: an order's reservations in the given status move together, once; other orders' and other statuses stay",
    run: async (t, run) => {
      await run(seedWithStock(5));
      await run(Effect.flatMap(OrdersRepository, (o) => Effect.all([o.insertOrder(order(1), []), o.insertOrder(order(2), [])])));
      await run(inventory((r) => r.insertReservations([reservation(1, 1), reservation(2, 1)])));
      t.equal(await run(inventory((r) => r.transitionReservationsOfOrder(kitId.order(1), ["active"], "committed", at(4)))), 1);
      t.equal(await run(inventory((r) => r.transitionReservationsOfOrder(kitId.order(1), ["active"], "committed", at(5)))), 0, "once");
      t.same((await run(inventory((r) => r.reservationsOfOrder(kitId.order(2))))).map((r) => r.status), ["active"], "another order's stay");
      t.ok(await run(inventory((r) => r.transitionReservation(kitId.res(2), ["active"], "released", at(6)))));
      t.equal(await run(inventory((r) => r.transitionReservationsOfOrder(kitId.order(2), ["active"], "committed", at(7)))), 0, "a released one is not committed");
      t.same((await run(inventory((r) => r.reservationsOfOrder(kitId.order(1))))).map((r) => r.status), ["committed"]);
    },
  },
  {
    name: "inventory: adjust creates the stock row at 0 and refuses to push on_hand below reserved or below 0",
    run: async (t, run) => {
      await run(seed);
      t.equal(await run(stock), null, "no row before the first adjustment");
      const after = await run(inventory((r) => r.adjust({ storeId: store, variantId: variant, locationId: location, delta: 5, now: at(1) })));
      t.equal(after?.onHand, 5);
      t.equal(after?.reserved, 0);
      t.equal(await run(inventory((r) => r.adjust({ storeId: store, variantId: variant, locationId: location, delta: -6, now: at(2) }))), null, "not below 0");
      t.ok(await run(inventory((r) => r.reserve(variant, location, 3, at(3)))));
      t.equal(await run(inventory((r) => r.adjust({ storeId: store, variantId: variant, locationId: location, delta: -3, now: at(4) }))), null, "not below reserved");
      const down = await run(inventory((r) => r.adjust({ storeId: store, variantId: variant, locationId: location, delta: -2, now: at(5) })));
      t.same([down?.onHand, down?.reserved], [3, 3], "down to reserved is allowed");
    },
  },
  {
    name: "inventory: reserve succeeds only while enough is available; reserved never exceeds on_hand",
    run: async (t, run) => {
      await run(seedWithStock(5));
      t.ok(await run(inventory((r) => r.reserve(variant, location, 3, at(2)))));
      t.notOk(await run(inventory((r) => r.reserve(variant, location, 3, at(3)))), "only 2 are available");
      t.ok(await run(inventory((r) => r.reserve(variant, location, 2, at(4)))));
      t.notOk(await run(inventory((r) => r.reserve(variant, location, 1, at(5)))));
      const level = await run(stock);
      t.same([level?.onHand, level?.reserved], [5, 5]);
      await run(inventory((r) => r.unreserve(variant, location, 2, at(6))));
      t.equal((await run(stock))?.reserved, 3, "a release gives back what it frees");
    },
  },
  {
    name: "inventory: twenty concurrent reservations of one unit for the last five units: exactly five succeed",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(seedWithStock(5));
      await run(warmUp(20, stock));
      const results = await run(
        Effect.all(
          Array.from({ length: 20 }, (_, i) => inventory((r) => r.reserve(variant, location, 1, at(10 + i)))),
          { concurrency: "unbounded" },
        ),
      );
      t.equal(results.filter(Boolean).length, 5);
      const level = await run(stock);
      t.same([level?.onHand, level?.reserved], [5, 5]);
    },
  },
  {
    name: "inventory: a reservation leaves a status once; consume lowers on_hand and reserved together",
    run: async (t, run) => {
      await run(seedWithStock(5));
      await run(Effect.flatMap(OrdersRepository, (o) => Effect.all([o.insertOrder(order(1), []), o.insertOrder(order(2), [])])));
      await run(inventory((r) => r.reserve(variant, location, 2, at(2))));
      await run(inventory((r) => r.insertReservations([reservation(1, 2)])));
      await run(inventory((r) => r.reserve(variant, location, 1, at(2))));
      await run(inventory((r) => r.insertReservations([reservation(2, 1)])));
      t.ok(await run(inventory((r) => r.transitionReservation(kitId.res(1), ["active"], "released", at(3)))));
      t.notOk(await run(inventory((r) => r.transitionReservation(kitId.res(1), ["active"], "released", at(4)))), "released once");
      t.notOk(await run(inventory((r) => r.transitionReservation(kitId.res(1), ["active", "committed"], "consumed", at(4)))), "a released one cannot be consumed");
      t.equal((await run(inventory((r) => r.findReservation(kitId.res(1)))))?.status, "released");
      t.ok(await run(inventory((r) => r.transitionReservation(kitId.res(2), ["active"], "committed", at(5)))));
      t.ok(await run(inventory((r) => r.transitionReservation(kitId.res(2), ["committed"], "consumed", at(6)))));
      await run(inventory((r) => r.consume(variant, location, 1, at(6))));
      const level = await run(stock);
      t.same([level?.onHand, level?.reserved], [4, 2], "one unit left the warehouse with its reservation");
      t.same((await run(inventory((r) => r.reservationsOfOrder(kitId.order(2))))).map((r) => r.status), ["consumed"]);
    },
  },
];

/** Runs the inventory kit against the adapter `options.factory` makes. */
export const inventoryRepositorySuite = (options: SuiteOptions<InventoryKitPorts>): Promise<unknown> => runCases(options, inventoryCases);
