/** Every route of the e-commerce module. */
import { carrierWebhookRoutes } from "./CarrierWebhookRoutes.js";
import { cartRoutes } from "./CartRoutes.js";
import { catalogRoutes } from "./CatalogRoutes.js";
import { orderRoutes } from "./OrderRoutes.js";
import { returnRoutes } from "./ReturnRoutes.js";
import { storeRoutes } from "./StoreRoutes.js";

export * from "./StoreSchemas.js";
export * from "./CatalogSchemas.js";
export * from "./CartSchemas.js";
export * from "./OrderSchemas.js";
export * from "./ReturnSchemas.js";
export * from "./StoreRoutes.js";
export * from "./CatalogRoutes.js";
export * from "./CartRoutes.js";
export * from "./OrderRoutes.js";
export * from "./ReturnRoutes.js";
export * from "./CarrierWebhookRoutes.js";

/** The e-commerce module's routes, in documentation order. */
export const commerceRoutes = [...storeRoutes, ...catalogRoutes, ...cartRoutes, ...orderRoutes, ...returnRoutes, ...carrierWebhookRoutes];
