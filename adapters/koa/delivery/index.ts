/** Every route of the food delivery module (paths without the mount prefix; the host adds it). */
import { chatRoutes } from "./ChatRoutes.js";
import { courierRoutes } from "./CourierRoutes.js";
import { dispatchRoutes } from "./DispatchRoutes.js";
import { operatorRoutes } from "./OperatorRoutes.js";
import { orderRoutes } from "./OrderRoutes.js";
import { restaurantRoutes } from "./RestaurantRoutes.js";
import { substitutionRoutes } from "./SubstitutionRoutes.js";

export * from "./CourierSchemas.js";
export * from "./OrderSchemas.js";
export * from "./RestaurantSchemas.js";
export * from "./ChatRoutes.js";
export * from "./CourierRoutes.js";
export * from "./DispatchRoutes.js";
export * from "./OperatorRoutes.js";
export * from "./OrderRoutes.js";
export * from "./RestaurantRoutes.js";
export * from "./SubstitutionRoutes.js";

/** The delivery module's routes, in documentation order. */
export const deliveryRoutes = [...restaurantRoutes, ...orderRoutes, ...substitutionRoutes, ...courierRoutes, ...dispatchRoutes, ...chatRoutes, ...operatorRoutes];
