/**
 * The food delivery module as a host sees it: its repositories, settings and location sealing
 * key, the payment port and merchant provisioning, routes (mounted under a prefix: `/v1/delivery`
 * in the reference server, `/v1` in a host that embeds delivery alone), migrations, jobs, the
 * recurring location-retention pass, the shorter history of its old event versions' data, and the realtime channels `delivery:<id>`,
 * `restaurant:<id>` and `courier:<id>`.
 *
 * Money moves only through the PaymentGateway port. Given `paymentGateway` and
 * `merchantProvisioning`, the module uses them (a host whose payment service runs elsewhere, or
 * a test); without them it binds both in-process to the payment module, which must then be
 * composed before it (the composition checks this at compile time).
 */
import { Effect, Layer } from "effect";
import { deliveryRoutes } from "../../adapters/koa/delivery/index.js";
import { makeInProcessPaymentGateway, type InProcessGatewayServices } from "../../adapters/payments/gateway/InProcessPaymentGateway.js";
import { sqlPort } from "../../adapters/sql/DatabaseLayer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { deliveryMigrations } from "../../adapters/sql/delivery/migrations/index.js";
import { makeSqlDispatchRepository } from "../../adapters/sql/delivery/SqlDispatchRepository.js";
import { makeSqlLocationSamples } from "../../adapters/sql/delivery/SqlLocationSamples.js";
import { makeSqlOrdersRepository } from "../../adapters/sql/delivery/SqlOrdersRepository.js";
import { makeSqlRestaurantsRepository } from "../../adapters/sql/delivery/SqlRestaurantsRepository.js";
import { makeSqlSettlementLedger } from "../../adapters/sql/delivery/SqlSettlementLedger.js";
import { makeSqlPayables } from "../../adapters/sql/delivery/SqlPayables.js";
import { makeSqlChatMessages } from "../../adapters/sql/delivery/SqlChatMessages.js";
import { makeSqlRefunds } from "../../adapters/sql/delivery/SqlRefunds.js";
import { makeSqlSubstitutions } from "../../adapters/sql/delivery/SqlSubstitutions.js";
import {
  deliveryChannelsFor,
  isOldStatusChange,
  maySubscribeToCourier,
  maySubscribeToDelivery,
  maySubscribeToRestaurant,
  oldStatusChangeCourierChannels,
  oldStatusChangeCouriersConsumerName,
} from "../../core/delivery/ChannelAccess.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { deliveryPushConsumer } from "../../core/delivery/PushNotifications.js";
import { deliverySettlementConsumer } from "../../core/delivery/SettlePayouts.js";
import { scheduleLocationRetention } from "../../core/delivery/LocationRetention.js";
import { oldEventVersionScrubs } from "../../core/delivery/OldEventVersionRetention.js";
import { DeliverySettings, defaultDeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Dispatchers, type Region } from "../../ports/delivery/Dispatchers.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { Substitutions } from "../../ports/delivery/Substitutions.js";
import { PushNotifier } from "../../ports/delivery/PushNotifier.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { ModuleChannelAuthorizer, ModuleDefinition } from "../ModuleDefinition.js";
import type { HostServices } from "../PortBindings.js";
import { makeInProcessMerchantProvisioning, type ProvisioningServices as MerchantProvisioningServices } from "../../adapters/payments/gateway/InProcessMerchantProvisioning.js";
import { makeDevelopmentPushNotifier } from "./deliveryPush.js";

/** The ports the delivery module's Layer provides. */
export type DeliveryPorts =
  | RestaurantsRepository
  | OrdersRepository
  | DispatchRepository
  | SettlementLedger
  | Payables
  | Refunds
  | ChatMessages
  | Substitutions
  | LocationSamples
  | DeliverySettings
  | Dispatchers
  | PushNotifier
  | PaymentGateway
  | MerchantProvisioning;

/** What the in-process payment adapters need of the host runtime (the payment module's ports). */
export type DeliveryInProcessPaymentServices = InProcessGatewayServices | MerchantProvisioningServices;

/** Options of the delivery module. */
export interface DeliveryModuleOptions {
  /** DELIVERY_* settings; the documented defaults for what is omitted. */
  readonly settings?: Partial<DeliverySettings>;
  /** The 32-byte AES-256 key sealing courier positions at rest (DELIVERY_LOCATION_KEY). */
  readonly locationKey: Uint8Array;
  /** The dispatchers and their regions (DELIVERY_DISPATCHERS); nobody when omitted. */
  readonly dispatchers?: ReadonlyArray<{ readonly userId: string; readonly region: Region }>;
  /** Where pushes go; the development adapter (one log line per push) when omitted. */
  readonly pushNotifier?: PushNotifier;
  /** Mount prefix of the routes: "/v1/delivery" in the reference server, "/v1" (the default) alone. */
  readonly prefix?: string;
}

/** Options with the payment adapters supplied by the host. */
export interface DeliveryModuleOwnPaymentsOptions extends DeliveryModuleOptions {
  readonly paymentGateway: PaymentGateway;
  readonly merchantProvisioning: MerchantProvisioning;
}

/** The delivery module's repositories over the host's database, its settings and the given payment adapters. */
export const deliveryLayer = (
  options: DeliveryModuleOptions & { readonly paymentGateway: PaymentGateway; readonly merchantProvisioning: MerchantProvisioning },
): Layer.Layer<DeliveryPorts, never, SqlDatabase> =>
  Layer.mergeAll(
    sqlPort(RestaurantsRepository, makeSqlRestaurantsRepository),
    sqlPort(OrdersRepository, makeSqlOrdersRepository),
    sqlPort(DispatchRepository, makeSqlDispatchRepository),
    sqlPort(SettlementLedger, makeSqlSettlementLedger),
    sqlPort(Payables, makeSqlPayables),
    sqlPort(Refunds, makeSqlRefunds),
    sqlPort(ChatMessages, makeSqlChatMessages),
    sqlPort(Substitutions, makeSqlSubstitutions),
    sqlPort(LocationSamples, (db) => makeSqlLocationSamples(db, options.locationKey)),
    Layer.succeed(DeliverySettings, { ...defaultDeliverySettings, ...options.settings }),
    Layer.sync(Dispatchers, () => {
      const regions = new Map((options.dispatchers ?? []).map((d) => [d.userId.toLowerCase(), d.region]));
      return { regionOf: (userId) => Effect.succeed(regions.get(userId.toLowerCase()) ?? null) };
    }),
    Layer.sync(PushNotifier, () => options.pushNotifier ?? makeDevelopmentPushNotifier()),
    Layer.succeed(PaymentGateway, options.paymentGateway),
    Layer.succeed(MerchantProvisioning, options.merchantProvisioning),
  );

/** `restaurant:<id>` (staff), `courier:<id>` (that courier), `delivery:<id>` (its customer, while unfinished). */
export const deliveryChannelAuthorizers: ReadonlyArray<ModuleChannelAuthorizer<RestaurantsRepository | DispatchRepository>> = [
  { kind: "restaurant", authorize: maySubscribeToRestaurant },
  { kind: "courier", authorize: maySubscribeToCourier },
  { kind: "delivery", authorize: maySubscribeToDelivery },
];

const definition = <R>(
  options: DeliveryModuleOptions,
  layer: Layer.Layer<DeliveryPorts, never, SqlDatabase>,
): ModuleDefinition<DeliveryPorts, HostServices<DeliveryPorts> | R> => ({
  name: "delivery",
  layer,
  routes: deliveryRoutes,
  prefix: options.prefix ?? "/v1",
  migrations: deliveryMigrations,
  consumers: [
    deliveryPushConsumer,
    deliverySettlementConsumer,
    // A version-1 status change names no courier: this one reads the delivery's (channelsFor routes the rest).
    realtimeConsumer({ name: oldStatusChangeCouriersConsumerName, handles: isOldStatusChange, channelsForEffect: oldStatusChangeCourierChannels }),
  ],
  jobHandlers: deliveryJobs,
  scheduleRecurring: (nowMs) => scheduleLocationRetention(nowMs),
  channelAuthorizers: deliveryChannelAuthorizers,
  channelsFor: deliveryChannelsFor,
  eventHistoryScrubs: oldEventVersionScrubs({ ...defaultDeliverySettings, ...options.settings }),
});

/**
 * Builds the delivery module's definition: with the host's own payment adapters, or (without
 * them) bound in-process to the payment module composed before it.
 */
export function makeDeliveryModule(options: DeliveryModuleOwnPaymentsOptions): ModuleDefinition<DeliveryPorts, HostServices<DeliveryPorts>>;
export function makeDeliveryModule(
  options: DeliveryModuleOptions,
): ModuleDefinition<DeliveryPorts, HostServices<DeliveryPorts> | DeliveryInProcessPaymentServices>;
export function makeDeliveryModule(
  options: DeliveryModuleOptions | DeliveryModuleOwnPaymentsOptions,
): ModuleDefinition<DeliveryPorts, HostServices<DeliveryPorts> | DeliveryInProcessPaymentServices> {
  if ("paymentGateway" in options) return definition(options, deliveryLayer(options));
  let attached: { readonly runFork: <A, E>(effect: Effect.Effect<A, E, DeliveryInProcessPaymentServices>) => import("effect").Fiber.RuntimeFiber<A, E> } | undefined;
  const runtime = () => {
    // A wiring error, not a payment failure: it surfaces as a defect at the first call.
    if (attached === undefined) throw new Error("the delivery module's payment runtime was not attached (attachRuntime after building the host runtime)");
    return attached;
  };
  const paymentGateway = makeInProcessPaymentGateway({ runtime });
  const merchantProvisioning = makeInProcessMerchantProvisioning(runtime);
  return {
    ...definition<DeliveryInProcessPaymentServices>(options, deliveryLayer({ ...options, paymentGateway, merchantProvisioning })),
    attachRuntime: (built) => {
      attached = built;
    },
  };
}
