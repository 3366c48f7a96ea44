/**
 * The commerce and delivery kits' race cases catch a check-then-act adapter (raceBreaks.ts): each
 * broken adapter is our Postgres adapter with one method answering from a check made before it
 * acted, which is right one call at a time and wrong when calls overlap. The unbroken adapter through the
 * same wrapper is the control.
 */
import { Effect } from "effect";
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { cartsCases, catalogCases, commerceOrdersCases, dispatchRepositoryCases, inventoryCases } from "../contract/index.js";
import { makeFakePaymentGateway } from "../delivery/FakePaymentGateway.js";
import { makeFakeMerchantProvisioning, testLocationKey } from "../delivery/support.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { brokenPostgres, checkThenAct, proveRaces, raceFailures, type BreakTools, type BrokenRace } from "./raceBreaks.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("the kits send no mail") } });
const commerce = compose().add(paymentsModule).add(commerceModule);
const deliveryModule = makeDeliveryModule({ paymentGateway: makeFakePaymentGateway(), merchantProvisioning: makeFakeMerchantProvisioning(), locationKey: testLocationKey });

/** The commerce ports over a fresh Postgres database, with the service of `tag` broken. */
const brokenCommerce = <I, S>(tag: import("effect").Context.Tag<I, S>, breakIt: (real: S, tools: BreakTools) => S) =>
  brokenPostgres((db: SqlDatabase) => moduleLayer(db, commerce), tag, breakIt, [paymentsModule, commerceModule]);

const claims = "orders: ten concurrent claims of one key: exactly one wins and the others answer its order";

t.test("the Postgres adapter through the wrapper, unbroken, passes the races (the control)", async (t) => {
  t.same(await raceFailures(commerceOrdersCases, claims, brokenCommerce(OrdersRepository, (r) => r)), []);
});

const races: ReadonlyArray<BrokenRace> = [
  {
    rule: claims,
    broken: "a checkout claim answered from a look before inserting",
    run: () => raceFailures(commerceOrdersCases, claims, brokenCommerce(OrdersRepository, (r, { tx }) => ({ ...r, claimCheckout: (c, p) => checkThenAct(tx, r.claimCheckout(c, p)) }))),
  },
  {
    rule: "orders: ten concurrent moves out of pending: exactly one succeeds",
    broken: "a transition answered from a look before updating",
    run: () =>
      raceFailures(
        commerceOrdersCases,
        "orders: ten concurrent moves out of pending: exactly one succeeds",
        brokenCommerce(OrdersRepository, (r, { tx }) => ({ ...r, transitionOrder: (...a) => checkThenAct(tx, r.transitionOrder(...a)) })),
      ),
  },
  {
    rule: "carts: ten concurrent checkouts of one cart: exactly one moves it",
    broken: "a cart checkout answered from a look before updating",
    run: () =>
      raceFailures(cartsCases, "carts: ten concurrent checkouts of one cart: exactly one moves it", brokenCommerce(CartsRepository, (r, { tx }) => ({ ...r, markCheckedOut: (...a) => checkThenAct(tx, r.markCheckedOut(...a)) }))),
  },
  {
    rule: "inventory: twenty concurrent reservations of one unit for the last five units: exactly five succeed",
    broken: "a reservation answered from a look before updating",
    run: () =>
      raceFailures(
        inventoryCases,
        "inventory: twenty concurrent reservations of one unit for the last five units: exactly five succeed",
        brokenCommerce(InventoryRepository, (r, { tx }) => ({ ...r, reserve: (...a) => checkThenAct(tx, r.reserve(...a)) })),
      ),
  },
  {
    rule: "catalog: ten concurrent uses of a promotion limited to three: exactly three count",
    broken: "a promotion use answered from a look before updating",
    run: () =>
      raceFailures(
        catalogCases,
        "catalog: ten concurrent uses of a promotion limited to three: exactly three count",
        brokenCommerce(CatalogRepository, (r, { tx }) => ({ ...r, usePromotion: (id) => checkThenAct(tx, r.usePromotion(id)) })),
      ),
  },
  {
    rule: "dispatch: ten couriers racing for one delivery: exactly one wins",
    broken: "a courier assignment answered from a look before updating",
    run: () =>
      raceFailures(
        dispatchRepositoryCases,
        "dispatch: ten couriers racing for one delivery: exactly one wins",
        brokenPostgres((db: SqlDatabase) => moduleLayer(db, [deliveryModule]), DispatchRepository, (r, { tx }) => ({ ...r, assignCourier: (...a) => checkThenAct(tx, r.assignCourier(...a)) }), [deliveryModule]),
      ),
  },
];

proveRaces(t, races);
