/**
 * The contract kits of the e-commerce module's ports (exported from the package's `testkit`
 * subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and exports its
 * cases (`xxxCases`).
 */
export * from "./CartsRepositoryKit.js";
export * from "./CartTokensKit.js";
export * from "./CatalogRepositoryKit.js";
export * from "./CheckoutRiskRepositoryKit.js";
// Not in commerceKits: its factory provides sealers (and a rotated one), not storage.
export * from "./FieldSealerKit.js";
export * from "./InventoryRepositoryKit.js";
export * from "./OrdersRepositoryKit.js";
export * from "./StoresRepositoryKit.js";

import type { SuiteOptions } from "../Kit.js";
import { cartsRepositorySuite, type CartsKitPorts } from "./CartsRepositoryKit.js";
import { cartTokensSuite, type CartTokensKitPorts } from "./CartTokensKit.js";
import { catalogRepositorySuite, type CatalogKitPorts } from "./CatalogRepositoryKit.js";
import { checkoutRiskRepositorySuite, type CheckoutRiskKitPorts } from "./CheckoutRiskRepositoryKit.js";
import { inventoryRepositorySuite, type InventoryKitPorts } from "./InventoryRepositoryKit.js";
import { commerceOrdersRepositorySuite, type OrdersKitPorts } from "./OrdersRepositoryKit.js";
import { storesRepositorySuite, type StoresKitPorts } from "./StoresRepositoryKit.js";

/** Every port the commerce kits cover. */
export type CommerceKitPorts = InventoryKitPorts | StoresKitPorts | CatalogKitPorts | CartsKitPorts | OrdersKitPorts | CartTokensKitPorts | CheckoutRiskKitPorts;

/** Every commerce kit by port name. */
export const commerceKits: Readonly<Record<string, (options: SuiteOptions<CommerceKitPorts>) => Promise<unknown>>> = {
  StoresRepository: storesRepositorySuite,
  CatalogRepository: catalogRepositorySuite,
  InventoryRepository: inventoryRepositorySuite,
  CartsRepository: cartsRepositorySuite,
  OrdersRepository: commerceOrdersRepositorySuite,
  CartTokens: cartTokensSuite,
  CheckoutRiskRepository: checkoutRiskRepositorySuite,
};
