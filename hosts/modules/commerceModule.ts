/**
 * The e-commerce module as a host sees it: the Layer of its ports (repositories over the
 * database, guest cart tokens, the sealing of order addresses and e-mails, the customer Mailer,
 * and — in the reference server — the PaymentGateway and MerchantProvisioning bound in-process
 * to the payment module on the host runtime), its routes, migrations, consumers (fulfillment
 * tasks, customer mail, and its own realtime consumer routing task events to their holder's
 * `shop-fulfillment:<store>:<user>` or the store's pool `shop-fulfillment:<store>`), jobs and the daily retention run, the `shop-order`, `shop-store` and `shop-fulfillment`
 * channels, guest cart tokens as bearer credentials, and carrier tracking (signed webhooks and
 * an hourly poll of the carrier's HTTP API when configured, else the sandbox carrier). It composes after the payment module,
 * whose ports its in-process payment bindings use; a host whose payments run elsewhere rebinds
 * PaymentGateway (makeHttpPaymentGateway) and MerchantProvisioning with `rebindPort`.
 */
import { createHash } from "node:crypto";
import { Effect, Layer, type ManagedRuntime } from "effect";
import { CheckoutRiskLimits, defaultCheckoutRiskBounds, type CheckoutRiskBounds } from "../../core/commerce/CheckoutRisk.js";
import { commerceRoutes } from "../../adapters/koa/commerce/index.js";
import { makeHttpCarrier, type HttpCarrierOptions } from "../../adapters/commerce/carriers/HttpCarrier.js";
import { makeHmacCarrierWebhookReceiver, makeSandboxCarrier } from "../../adapters/commerce/carriers/SandboxCarrier.js";
import { configuredMailer } from "../../adapters/mail/configuredMailer.js";
import { makeInProcessPaymentGateway, type InProcessGatewayServices } from "../../adapters/payments/gateway/InProcessPaymentGateway.js";
import { sqlPort } from "../../adapters/sql/DatabaseLayer.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { cryptoCartTokens, looksLikeCartToken } from "../../adapters/commerce/CartTokens.js";
import { makeAesGcmFieldSealer, type FieldSealerKeys } from "../../adapters/commerce/FieldSealer.js";
import { hmacRiskSignalDigests } from "../../adapters/commerce/RiskSignalDigests.js";
import {
  commerceMigrations,
  makeSqlCartsRepository,
  makeSqlCatalogRepository,
  makeSqlCheckoutRiskRepository,
  makeSqlInventoryRepository,
  makeSqlOrdersRepository,
  makeSqlStoresRepository,
} from "../../adapters/sql/commerce/index.js";
import { authenticateCartToken } from "../../core/commerce/Callers.js";
import {
  commerceChannelsFor,
  fulfillmentChannelKind,
  mayWatchFulfillment,
  mayWatchOrder,
  mayWatchStore,
  orderChannelKind,
  storeChannelKind,
} from "../../core/commerce/ChannelAccess.js";
import { commerceConsumers } from "../../core/commerce/Consumers.js";
import { fulfillmentChannelsConsumerName, fulfillmentOperatorChannels, isFulfillmentTaskEvent } from "../../core/commerce/FulfillmentChannels.js";
import { commerceJobs } from "../../core/commerce/Jobs.js";
import { scheduleRetention } from "../../core/commerce/Retention.js";
import { scheduleCarrierPoll } from "../../core/commerce/CarrierTracking.js";
import type { CommerceServices } from "../../core/commerce/Services.js";
import { Mailer } from "../../ports/Mailer.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { ChannelLog, RealtimeBus } from "../../ports/Realtime.js";
import { CarrierTracking, CarrierWebhookReceiver } from "../../ports/commerce/Carriers.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { FieldSealer } from "../../ports/commerce/FieldSealer.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { RiskSignalDigests } from "../../ports/commerce/RiskSignalDigests.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import type { ModuleChannelAuthorizer, ModuleDefinition } from "../ModuleDefinition.js";
import { makeInProcessMerchantProvisioning, type ProvisioningServices } from "../../adapters/payments/gateway/InProcessMerchantProvisioning.js";

/** The ports the e-commerce module's Layer provides. */
export type CommercePorts =
  | StoresRepository
  | CatalogRepository
  | InventoryRepository
  | CartsRepository
  | OrdersRepository
  | CheckoutRiskRepository
  | RiskSignalDigests
  | CartTokens
  | FieldSealer
  | Mailer
  | PaymentGateway
  | MerchantProvisioning
  | CarrierWebhookReceiver
  | CarrierTracking;

/** Options of the e-commerce module. */
export interface CommerceModuleOptions {
  /** Customer mail (receipts, tracking); the environment's Mailer when omitted. */
  readonly mailer?: Mailer;
  /**
   * Keys sealing order addresses and e-mails at rest (AES-256-GCM, 32 bytes each, one current).
   * When omitted: COMMERCE_SEALING_KEYS (`id:base64,...`, the first is current), else a fixed
   * development key (id `dev`) — never for production data (docs/decisions.md, E-commerce slice 2).
   */
  readonly sealingKeys?: FieldSealerKeys;
  /** Secrets of carrier webhooks (several while rotating); else COMMERCE_CARRIER_WEBHOOK_SECRET; none: every delivery is refused (400). */
  readonly carrierWebhookSecrets?: ReadonlyArray<string>;
  /** The carrier tracking adapter of the hourly poll; else the HTTP carrier of `carrierApi`; else the sandbox carrier. */
  readonly carrierTracking?: CarrierTracking;
  /** The carrier's tracking API (COMMERCE_CARRIER_URL, COMMERCE_CARRIER_API_KEY in the reference server's Config). */
  readonly carrierApi?: HttpCarrierOptions;
  /** Environment to read COMMERCE_SEALING_KEYS and COMMERCE_CARRIER_WEBHOOK_SECRET from (process.env when omitted). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Checkout-risk bounds per kind of signal; `defaultCheckoutRiskBounds` (core/commerce/CheckoutRisk.ts) when omitted. */
  readonly checkoutRiskBounds?: CheckoutRiskBounds;
}

/** Sealing keys from `COMMERCE_SEALING_KEYS` (`k2:<base64>,k1:<base64>`), or the development key. */
export const sealingKeysFromEnv = (env: Readonly<Record<string, string | undefined>>): FieldSealerKeys => {
  const raw = env.COMMERCE_SEALING_KEYS?.trim() ?? "";
  if (raw === "") {
    return { currentKeyId: "dev", keys: { dev: createHash("sha256").update("domainkit development commerce sealing key").digest() } };
  }
  const entries = raw.split(",").map((part) => {
    const colon = part.indexOf(":");
    if (colon <= 0) throw new Error("COMMERCE_SEALING_KEYS must be id:base64 pairs separated by commas");
    return [part.slice(0, colon).trim(), Buffer.from(part.slice(colon + 1).trim(), "base64")] as const;
  });
  return { currentKeyId: entries[0]![0], keys: Object.fromEntries(entries) };
};

/**
 * The services the module's programs run with: the commerce core's, and the payment core's for
 * the in-process gateway and merchant provisioning (so it composes after the payment module), and
 * the host's realtime ports for its own realtime consumer.
 */
export type CommerceModuleServices = CommerceServices | InProcessGatewayServices | ProvisioningServices | ChannelLog | RealtimeBus;

/** The runtime the in-process payment bindings run on (the host's, attached after it is built). */
type CommerceRuntime = ManagedRuntime.ManagedRuntime<CommerceModuleServices, never>;

/** The e-commerce module's ports over the host's database; payments in-process on `runtime()`. */
export const commerceLayer = (
  options: CommerceModuleOptions,
  runtime: () => CommerceRuntime,
): Layer.Layer<CommercePorts, never, SqlDatabase> => {
  const env = options.env ?? process.env;
  const sealingKeys = () => options.sealingKeys ?? sealingKeysFromEnv(env);
  const sealing = Layer.sync(FieldSealer, () => makeAesGcmFieldSealer(sealingKeys()));
  const carrierSecrets =
    options.carrierWebhookSecrets ?? (env.COMMERCE_CARRIER_WEBHOOK_SECRET ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  return Layer.mergeAll(
    sqlPort(StoresRepository, makeSqlStoresRepository),
    sqlPort(CatalogRepository, makeSqlCatalogRepository),
    sqlPort(InventoryRepository, makeSqlInventoryRepository),
    sqlPort(CartsRepository, makeSqlCartsRepository),
    // The SQL adapter seals through the FieldSealer port it is given (adapters/sql imports no crypto adapter).
    Layer.provideMerge(Layer.unwrapEffect(Effect.map(FieldSealer, (sealer) => sqlPort(OrdersRepository, (db) => makeSqlOrdersRepository(db, sealer)))), sealing),
    Layer.succeed(CartTokens, cryptoCartTokens),
    sqlPort(CheckoutRiskRepository, makeSqlCheckoutRiskRepository),
    Layer.succeed(CheckoutRiskLimits, options.checkoutRiskBounds ?? defaultCheckoutRiskBounds),
    Layer.sync(RiskSignalDigests, () => hmacRiskSignalDigests(sealingKeys())),
    // Built when the runtime is, so merely importing the module opens no SMTP transport.
    Layer.sync(Mailer, () => options.mailer ?? configuredMailer()),
    Layer.succeed(PaymentGateway, makeInProcessPaymentGateway({ runtime })),
    Layer.succeed(MerchantProvisioning, makeInProcessMerchantProvisioning(runtime)),
    Layer.succeed(CarrierWebhookReceiver, makeHmacCarrierWebhookReceiver({ secrets: carrierSecrets })),
    Layer.sync(CarrierTracking, () => options.carrierTracking ?? (options.carrierApi !== undefined ? makeHttpCarrier(options.carrierApi) : makeSandboxCarrier())),
  );
};

/** `shop-order:<id>`: the order's customer, guest, support staff or the store's owners. */
export const orderChannelAuthorizer: ModuleChannelAuthorizer<CommerceModuleServices> = { kind: orderChannelKind, authorize: mayWatchOrder };
/** `shop-store:<id>`: the store's owners (its order events and its fulfillment tasks' moves). */
export const storeChannelAuthorizer: ModuleChannelAuthorizer<CommerceModuleServices> = { kind: storeChannelKind, authorize: mayWatchStore };
/**
 * `shop-fulfillment:<store id>:<user id>`: that user only, and `shop-fulfillment:<store id>` (the
 * unassigned tasks): the store's warehouse operators and owners; what their task lists show
 * (status and moves only).
 */
export const fulfillmentChannelAuthorizer: ModuleChannelAuthorizer<CommerceModuleServices> = { kind: fulfillmentChannelKind, authorize: mayWatchFulfillment };

/** Builds the e-commerce module's definition. */
export const makeCommerceModule = (options: CommerceModuleOptions = {}): ModuleDefinition<CommercePorts, CommerceModuleServices> => {
  let attached: CommerceRuntime | undefined;
  const runtime = (): CommerceRuntime => {
    // A wiring error, not a payment failure: it surfaces as a defect at the first call.
    if (attached === undefined) throw new Error("the commerce module's runtime was not attached (attachRuntime after building the host runtime)");
    return attached;
  };
  return {
    name: "commerce",
    layer: commerceLayer(options, runtime),
    routes: commerceRoutes,
    migrations: commerceMigrations,
    consumers: [
      ...commerceConsumers,
      realtimeConsumer({ name: fulfillmentChannelsConsumerName, handles: isFulfillmentTaskEvent, channelsForEffect: fulfillmentOperatorChannels }),
    ],
    jobHandlers: commerceJobs,
    scheduleRecurring: (nowMs) => Effect.asVoid(Effect.zipRight(scheduleRetention(nowMs), scheduleCarrierPoll(nowMs))),
    channelAuthorizers: [orderChannelAuthorizer, storeChannelAuthorizer, fulfillmentChannelAuthorizer],
    channelsFor: commerceChannelsFor,
    bearerAuthenticators: [{ name: "guest_cart_token", matches: looksLikeCartToken, authenticate: authenticateCartToken }],
    attachRuntime: (built) => {
      attached = built;
    },
  };
};
