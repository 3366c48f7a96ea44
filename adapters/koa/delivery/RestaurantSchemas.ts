/**
 * Request params, queries and bodies of the restaurant endpoints (docs/conventions.md, HTTP).
 * Values are checked by the core (names, coordinates, prices); these schemas check the shape.
 */
import { Schema } from "effect";
import { pageQueryFields } from "../Pagination.js";
import { CourierOfferId, DeliveryId, MenuItemId, OrderId, RestaurantId, SubstitutionId } from "../../../core/delivery/model/Ids.js";
import { idOf, RouteId } from "../RouteIds.js";

const Id = RouteId;

/** Path parameter `:id` of a record of another module (a kernel job). */
export const IdParams = Schema.Struct({ id: Id });

/** `:id` of a restaurant. */
export const RestaurantParams = Schema.Struct({ id: idOf(RestaurantId) });
/** `:id` of an order (the customer's `/orders/:id` and the restaurant's `/restaurant-orders/:id`). */
export const OrderParams = Schema.Struct({ id: idOf(OrderId) });
/** `:id` of a delivery. */
export const DeliveryParams = Schema.Struct({ id: idOf(DeliveryId) });
/** `:id` of a courier offer. */
export const OfferParams = Schema.Struct({ id: idOf(CourierOfferId) });
/** `:id` of an order and `:substitution_id` of one of its substitutions. */
export const SubstitutionParams = Schema.Struct({ id: idOf(OrderId), substitution_id: idOf(SubstitutionId) });

/** Path of PUT /restaurants/:id/items/:item_id/availability. */
export const ItemParams = Schema.Struct({ id: idOf(RestaurantId), item_id: idOf(MenuItemId) });

/** Query of GET /restaurants: the point (checked by the core: 400 invalid_coordinates), cursor and limit. */
export const DiscoveryQuery = Schema.Struct({
  lat: Schema.optional(Schema.String).annotations({ description: "Latitude of the drop-off point, -90 to 90." }),
  lng: Schema.optional(Schema.String).annotations({ description: "Longitude of the drop-off point, -180 to 180." }),
  ...pageQueryFields,
});

/** Body of POST /restaurants. */
export const CreateRestaurantBody = Schema.Struct({
  name: Schema.String,
  lat: Schema.Number,
  lng: Schema.Number,
  service_radius_m: Schema.Int,
  currency: Schema.String,
});

/** Body of POST /restaurants/:id/staff. */
export const AddStaffBody = Schema.Struct({ user_id: Id });
/** `:id` of a restaurant and `:user_id` of one of its staff. */
export const StaffParams = Schema.Struct({ id: idOf(RestaurantId), user_id: Id });
/** `?reason=` of a staff removal (1 to 500 characters, checked by the core; a default is recorded without it). */
export const RemoveStaffQuery = Schema.Struct({ reason: Schema.optional(Schema.String) });

const MenuModifierBody = Schema.Struct({
  id: Schema.optional(Id),
  name: Schema.String,
  price_minor: Schema.Int,
});

const MenuItemBody = Schema.Struct({
  /** An item id of an earlier version keeps the item's identity (the quote diff relies on it). */
  id: Schema.optional(Id),
  name: Schema.String,
  price_minor: Schema.Int,
  available: Schema.optional(Schema.Boolean),
  modifiers: Schema.optional(Schema.Array(MenuModifierBody).pipe(Schema.maxItems(50))),
});

/** Body of POST /restaurants/:id/menus: the items of the next immutable version. */
export const PublishMenuBody = Schema.Struct({ items: Schema.Array(MenuItemBody).pipe(Schema.maxItems(500)) });

/** Body of PUT /restaurants/:id/items/:item_id/availability. */
export const AvailabilityBody = Schema.Struct({ available: Schema.Boolean });

/** Body of POST /restaurant-orders/:id/accept. */
export const AcceptOrderBody = Schema.Struct({ prep_time_minutes: Schema.Int });

/** Body of POST /restaurant-orders/:id/reject. */
export const RejectOrderBody = Schema.Struct({ reason: Schema.String });
