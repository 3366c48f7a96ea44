/**
 * Personal data a module keeps only briefly is marked on its schema (core/kernel/RetainedBriefly.ts),
 * and found by its wire name wherever an answer carries it: at the top level, nested, in lists,
 * behind null, through a record's wire shape (times included) and a suspended view. The delivery
 * records mark the customer's drop-off and the courier's position.
 */
import { Schema } from "effect";
import t from "tap";
import { retainedBriefly, retainedBrieflyPaths } from "../../core/kernel/RetainedBriefly.js";
import { wireShape } from "../../core/kernel/Wire.js";
import { CourierWire } from "../../core/delivery/model/Courier.js";
import { QuoteWire } from "../../core/delivery/model/Quote.js";
import { ActiveJobWire, CourierDeliveryWire, CustomerOrderWire, DeliveryWire, DispatchListDeliveryWire, TrackingWire } from "../../core/delivery/model/Views.js";

t.test("a marked field is found by its wire name, at any depth, behind null and in lists", async (t) => {
  const Stop = Schema.Struct({ label: Schema.String, lat: retainedBriefly(Schema.Number) });
  const Trip = Schema.Struct({
    id: Schema.String,
    dropoffAddress: retainedBriefly(Schema.String),
    lastSeenAt: retainedBriefly(Schema.NullOr(Schema.DateFromSelf)),
    createdAt: Schema.DateFromSelf,
    stops: Schema.Array(Stop),
    origin: Schema.NullOr(Stop),
  });
  t.same([...retainedBrieflyPaths(wireShape(Trip).ast)].sort(), ["dropoff_address", "last_seen_at", "origin.lat", "stops[].lat"]);
  t.same(retainedBrieflyPaths(Schema.Struct({ id: Schema.String, createdAt: Schema.Date }).ast), [], "nothing marked, nothing found");
  t.same(retainedBrieflyPaths(retainedBriefly(Schema.String).ast), [""], "a marked value as a whole");
});

t.test("the delivery records mark the customer's drop-off and the courier's position as retained briefly", async (t) => {
  const dropoff = ["dropoff_address", "dropoff_lat", "dropoff_lng"];
  for (const [name, wire] of [["quote", QuoteWire], ["customer order", CustomerOrderWire], ["delivery", DeliveryWire], ["courier's delivery", CourierDeliveryWire]] as const) {
    const paths = retainedBrieflyPaths(wire.ast);
    for (const field of dropoff) t.ok(paths.includes(field), `${name}: ${field}`);
  }
  t.same([...retainedBrieflyPaths(CourierWire.ast)].sort(), ["lat", "lng"], "a courier's position");
  t.same([...retainedBrieflyPaths(TrackingWire.ast)].sort(), ["courier_position.lat", "courier_position.lng"], "tracking's courier position");
  t.same([...retainedBrieflyPaths(ActiveJobWire.ast)].sort(), ["dropoff.address", "dropoff.lat", "dropoff.lng"], "the courier's job: the drop-off, not the pickup");
  t.same(retainedBrieflyPaths(DispatchListDeliveryWire.ast), [], "the dispatcher's list shows no drop-off");
});
