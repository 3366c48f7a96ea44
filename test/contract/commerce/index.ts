/**
 * The contract kits of the e-commerce module's repository ports (exported from the package's
 * `testkit` subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and
 * exports its cases (`xxxCases`).
 */
export * from "./InventoryRepositoryKit.js";

import type { SuiteOptions } from "../Kit.js";
import { inventoryRepositorySuite, type InventoryKitPorts } from "./InventoryRepositoryKit.js";

/** Every repository port the commerce kits cover. */
export type CommerceKitPorts = InventoryKitPorts;

/** Every commerce kit by port name. */
export const commerceKits: Readonly<Record<string, (options: SuiteOptions<CommerceKitPorts>) => Promise<unknown>>> = {
  InventoryRepository: inventoryRepositorySuite,
};
