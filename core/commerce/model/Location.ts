/** A fulfillment location of a store, where stock is kept. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { LocationId, StoreId } from "./Ids.js";

export const Location = Schema.Struct({
  id: LocationId,
  storeId: StoreId,
  name: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Location = typeof Location.Type;

export const LocationWire = wireShape(Location);
