/** The e-commerce module's SQL adapter: repositories over `shop_*` tables and the module's migrations. */
export * from "./migrations/index.js";
export * from "./SqlStoresRepository.js";
export * from "./SqlCatalogRepository.js";
export * from "./SqlInventoryRepository.js";
export * from "./SqlCartsRepository.js";
export * from "./SqlOrdersRepository.js";
export * from "./SqlCheckoutRiskRepository.js";
