/**
 * The contract kits of the delivery module's repository ports (exported from the package's
 * `testkit` subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and
 * exports its cases; restaurants, orders and deliveries are written through the module's own
 * repositories, so a kit's ports include them.
 */
/** The records and helpers the kits build on (a namespace, so their short names cannot clash with other modules' kits). */
export * as deliveryFixtures from "./fixtures.js";
export * from "./DispatchRepositoryKit.js";
export * from "./SettlementLedgerKit.js";
export * from "./OrdersRepositoryKit.js";
export * from "./RestaurantsRepositoryKit.js";
export * from "./LocationSamplesKit.js";
export * from "./ChatMessagesKit.js";
export * from "./SubstitutionsKit.js";
export * from "./PayablesKit.js";
export * from "./RefundsKit.js";

import type { SuiteOptions } from "../Kit.js";
import { dispatchRepositorySuite, type DispatchRepositoryKitPorts } from "./DispatchRepositoryKit.js";
import { settlementLedgerSuite, type SettlementLedgerKitPorts } from "./SettlementLedgerKit.js";
import { deliveryOrdersRepositorySuite, type OrdersRepositoryKitPorts } from "./OrdersRepositoryKit.js";
import { restaurantsRepositorySuite, type RestaurantsRepositoryKitPorts } from "./RestaurantsRepositoryKit.js";
import { locationSamplesSuite, type LocationSamplesKitPorts } from "./LocationSamplesKit.js";
import { chatMessagesSuite, type ChatMessagesKitPorts } from "./ChatMessagesKit.js";
import { substitutionsSuite, type SubstitutionsKitPorts } from "./SubstitutionsKit.js";
import { payablesSuite, type PayablesKitPorts } from "./PayablesKit.js";
import { refundsSuite, type RefundsKitPorts } from "./RefundsKit.js";

/** Every repository port of the delivery module the kits cover. */
export type DeliveryKitPorts = DispatchRepositoryKitPorts | SettlementLedgerKitPorts | OrdersRepositoryKitPorts | RestaurantsRepositoryKitPorts | LocationSamplesKitPorts | ChatMessagesKitPorts | SubstitutionsKitPorts | PayablesKitPorts | RefundsKitPorts;

/** Every delivery kit by port name. */
export const deliveryKits: Readonly<Record<string, (options: SuiteOptions<DeliveryKitPorts>) => Promise<unknown>>> = {
  DispatchRepository: dispatchRepositorySuite,
  SettlementLedger: settlementLedgerSuite,
  OrdersRepository: deliveryOrdersRepositorySuite,
  RestaurantsRepository: restaurantsRepositorySuite,
  LocationSamples: locationSamplesSuite,
  ChatMessages: chatMessagesSuite,
  Substitutions: substitutionsSuite,
  Payables: payablesSuite,
  Refunds: refundsSuite,
};
