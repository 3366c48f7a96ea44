/**
 * Test support of the delivery module: the ONE place its migrations are registered for tests,
 * a runtime of the delivery core over one test database (real SQL repositories, an in-memory
 * payment gateway and merchant provisioning), and fixtures that build a restaurant with a
 * menu, couriers and orders through the core use cases.
 */
import { Cause, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Option } from "effect";
import { deliveryMigrations } from "../../adapters/sql/delivery/migrations/index.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { acceptOrder } from "../../core/delivery/AcceptOrder.js";
import { listMyOffers, recordLocations, registerCourier, setCourierOnline } from "../../core/delivery/Couriers.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { publishMenu, type NewMenuItem } from "../../core/delivery/Menus.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { quoteOrder } from "../../core/delivery/QuoteOrder.js";
import { createRestaurant, setOpening } from "../../core/delivery/Restaurants.js";
import { DeliverySettings, defaultDeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import type { Dispatchers, Region } from "../../ports/delivery/Dispatchers.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { Substitutions } from "../../ports/delivery/Substitutions.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { Principal } from "../../ports/Principal.js";
import { RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import type { Push, PushNotifier } from "../../ports/delivery/PushNotifier.js";
import type { HasTeardown } from "../support/databases.js";
import { forEachDialect, testModules, type TapTest } from "../support/databases.js";
import { makeFakePaymentGateway, type FakePaymentGateway } from "./FakePaymentGateway.js";

/** The tables a delivery test database gets: the reference modules' and this module's. */
export const deliveryTestModules = [...testModules, { name: "delivery", migrations: deliveryMigrations }];

/** `forEachDialect` on a database with this module's tables. */
export const forEachDeliveryDialect = (t: TapTest, name: string, fn: (t: TapTest, db: SqlDatabase) => Promise<void>): Promise<unknown> =>
  forEachDialect(t, name, fn, deliveryTestModules);

/** The location sealing key of the tests (a host reads its own from configuration). */
export const testLocationKey = new Uint8Array(32).fill(7);

/** Every service the delivery core needs. */
export type DeliveryServices =
  | StoragePorts
  | RestaurantsRepository
  | OrdersRepository
  | DispatchRepository
  | SettlementLedger
  | Payables
  | Refunds
  | ChatMessages
  | Substitutions
  | Dispatchers
  | LocationSamples
  | DeliverySettings
  | PaymentGateway
  | MerchantProvisioning
  | RealtimeBus
  | PushNotifier;

/** Merchant provisioning that answers one merchant per reference, as the payments module does. */
export const makeFakeMerchantProvisioning = (): MerchantProvisioning & { readonly merchants: Map<string, string> } => {
  const merchants = new Map<string, string>();
  return {
    merchants,
    provision: (request) =>
      Effect.sync(() => {
        const existing = merchants.get(request.reference);
        if (existing !== undefined) return { merchantId: existing };
        const merchantId = `merchant_${merchants.size + 1}`;
        merchants.set(request.reference, merchantId);
        return { merchantId };
      }),
  };
};

/** The delivery core's layer over `db`: the module definition's own bindings, with the given outside services. */
export const deliveryTestLayer = (
  db: SqlDatabase,
  gateway: PaymentGateway,
  settings: DeliverySettings = defaultDeliverySettings,
  bus: RealtimeBus = recordingBus().bus,
  pushNotifier: PushNotifier = recordingPushNotifier().notifier,
  dispatchers: ReadonlyArray<{ readonly userId: string; readonly region: Region }> = [],
) =>
  Layer.mergeAll(
    moduleLayer(db, [
      makeDeliveryModule({ paymentGateway: gateway, merchantProvisioning: makeFakeMerchantProvisioning(), locationKey: testLocationKey, settings, pushNotifier, dispatchers }),
    ]),
    Layer.succeed(RealtimeBus, bus),
    Logger.minimumLogLevel(LogLevel.Error),
  );

/** A push notifier that records what it sends. */
export const recordingPushNotifier = () => {
  const pushes: Push[] = [];
  const notifier: PushNotifier = { send: (push) => Effect.sync(() => void pushes.push(push)) };
  return { notifier, pushes };
};

/** A realtime bus that records the notices published (no other process listens in these tests). */
export const recordingBus = () => {
  const notices: RealtimeNotice[] = [];
  const bus: RealtimeBus = {
    publish: (notice) => Effect.sync(() => void notices.push(notice)),
    listen: () => Effect.succeed(() => undefined),
  };
  return { bus, notices };
};

/** A runtime of the delivery core over `db`, disposed at teardown. */
export const deliveryRuntime = (
  t: HasTeardown,
  db: SqlDatabase,
  settings: Partial<DeliverySettings> = {},
  dispatchers: ReadonlyArray<{ readonly userId: string; readonly region: Region }> = [],
) => {
  const gateway: FakePaymentGateway = makeFakePaymentGateway();
  const { bus, notices } = recordingBus();
  const { notifier, pushes } = recordingPushNotifier();
  const runtime = ManagedRuntime.make(deliveryTestLayer(db, gateway, { ...defaultDeliverySettings, ...settings }, bus, notifier, dispatchers));
  t.teardown(() => runtime.dispose());
  const run = <A, E>(effect: Effect.Effect<A, E, DeliveryServices>): Promise<A> => runtime.runPromise(effect);
  /** Runs and answers the typed failure (or the value) so tests can inspect error codes. */
  const attempt = async <A, E>(effect: Effect.Effect<A, E, DeliveryServices>): Promise<{ ok: true; value: A } | { ok: false; error: E }> => {
    const exit = await runtime.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
    const failure = Cause.failureOption(exit.cause);
    if (Option.isNone(failure)) throw new Error(`unexpected defect: ${Cause.pretty(exit.cause)}`);
    return { ok: false, error: failure.value };
  };
  return { runtime, run, attempt, gateway, notices, pushes };
};

export type DeliveryRuntime = ReturnType<typeof deliveryRuntime>;

/** A signed-in user. */
export const user = (userId: string): Principal => ({ kind: "user", userId });

/** The restaurant's location in the fixtures (and its couriers' neighbourhood). */
export const here = { lat: 52.52, lng: 13.405 };

/** A menu of two items (one with a modifier). */
export const sampleMenu: ReadonlyArray<NewMenuItem> = [
  { name: "Margherita", priceMinor: 900, modifiers: [{ name: "Extra cheese", priceMinor: 150 }] },
  { name: "Lemonade", priceMinor: 350 },
];

/** An open restaurant of `owner` with the sample menu published. */
export const openRestaurant = async (rt: DeliveryRuntime, owner = "owner-1", currency = "EUR") => {
  const restaurant = await rt.run(
    createRestaurant(user(owner), { name: `Trattoria ${owner}`, lat: here.lat, lng: here.lng, serviceRadiusM: 5000, currency }),
  );
  const menu = await rt.run(publishMenu(user(owner), restaurant.id, sampleMenu));
  await rt.run(setOpening(user(owner), restaurant.id, "open"));
  return { restaurant, menu, owner };
};

/** `count` online couriers near the restaurant, nearest first (courier-<prefix>-0 is nearest). */
export const onlineCouriers = async (rt: DeliveryRuntime, count: number, prefix = "c") => {
  const couriers = [];
  for (let i = 0; i < count; i++) {
    const principal = user(`courier-${prefix}-${i}`);
    const courier = await rt.run(registerCourier(principal, { name: `Courier ${prefix} ${i}` }));
    await rt.run(setCourierOnline(principal, true));
    await rt.run(recordLocations(principal, [{ lat: here.lat + 0.001 * (i + 1), lng: here.lng, recordedAt: new Date(Date.now() - 1000) }]));
    couriers.push({ courier, principal });
  }
  return couriers;
};

/** A quote of one Margherita (with extra cheese) and two lemonades, delivered 1 km away (or to `dropoff`). */
export const quoteFor = (
  rt: DeliveryRuntime,
  customer: string,
  fixture: Awaited<ReturnType<typeof openRestaurant>>,
  dropoff: { readonly lat: number; readonly lng: number; readonly address: string } = { lat: here.lat + 0.009, lng: here.lng, address: "Alexanderplatz 1" },
) => {
  const [pizza, drink] = fixture.menu.items;
  if (pizza === undefined || drink === undefined) throw new Error("fixture menu");
  return rt.run(
    quoteOrder(user(customer), {
      restaurantId: fixture.restaurant.id,
      menuVersion: fixture.menu.version,
      lines: [
        { itemId: pizza.id, quantity: 1, modifierIds: [pizza.modifiers[0]?.id ?? ""] },
        { itemId: drink.id, quantity: 2, modifierIds: [] },
      ],
      dropoff,
    }),
  );
};

/** An authorized order of `customer`. */
export const authorizedOrder = async (rt: DeliveryRuntime, customer: string, fixture: Awaited<ReturnType<typeof openRestaurant>>) => {
  const quote = await quoteFor(rt, customer, fixture);
  return rt.run(placeOrder(user(customer), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
};

/** An accepted order (its delivery pending, offers sent to the couriers online). */
export const acceptedOrder = async (rt: DeliveryRuntime, customer: string, fixture: Awaited<ReturnType<typeof openRestaurant>>) => {
  const placed = await authorizedOrder(rt, customer, fixture);
  const accepted = await rt.run(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 15 }));
  return { placed, accepted };
};

/**
 * The courier's status change sent with the delivery's current version as `expected_version`,
 * as a client does with the version it last read (the version check itself: transitions.test.ts).
 */
export const advanceDelivery = async (rt: DeliveryRuntime, principal: Principal, deliveryId: string, change: { readonly transitionId: string; readonly status: string }) => {
  const current = await rt.run(Effect.flatMap(DispatchRepository, (d) => d.findDelivery(deliveryId)));
  return rt.run(updateDeliveryStatus(principal, deliveryId, { ...change, expectedVersion: current?.version ?? 0 }));
};

/** An accepted order whose delivery a fresh courier won and picked up (transition id "p"). */
export const pickedUpOrder = async (rt: DeliveryRuntime, customer: string, fixture: Awaited<ReturnType<typeof openRestaurant>>) => {
  const [courier] = await onlineCouriers(rt, 1, `for-${customer}`);
  const { placed, accepted } = await acceptedOrder(rt, customer, fixture);
  const offer = (await rt.run(listMyOffers(courier!.principal))).find((o) => o.deliveryId === accepted.delivery.id);
  if (offer === undefined) throw new Error("the courier got no offer");
  await rt.run(acceptOffer(courier!.principal, offer.id));
  await advanceDelivery(rt, courier!.principal, accepted.delivery.id, { transitionId: "p", status: "picked_up" });
  return { placed, accepted, courier: courier! };
};
