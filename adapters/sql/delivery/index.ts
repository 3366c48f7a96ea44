/** The delivery module's SQL adapter: repositories over one SqlDatabase and the module's migrations. */
export * from "./migrations/index.js";
export * from "./SqlDispatchRepository.js";
export * from "./SqlOrdersRepository.js";
export * from "./SqlRestaurantsRepository.js";
export * from "./SqlSettlementLedger.js";
export * from "./SqlPayables.js";
export * from "./SqlRefunds.js";
export * from "./SqlChatMessages.js";
export * from "./SqlSubstitutions.js";
export * from "./SqlLocationSamples.js";
