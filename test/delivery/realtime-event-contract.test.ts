/**
 * Versioning: "Mobile realtime events are versioned"; "Mobile realtime event versions are
 * contract-tested." The contract of every delivery event that reaches a realtime channel, as the
 * mobile apps decode it: its type, its schema_version and the fields of its data. Changing a
 * payload (a field added, removed or retyped) fails here until its schema_version is bumped and
 * this table is changed with it, on purpose. A new event type fails here until it is added.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import * as Events from "../../core/delivery/Events.js";
import { Ids } from "../../ports/Ids.js";

/** One event's contract: its version and a payload the mobile apps of that version read (every field present). */
interface EventContract {
  readonly schema_version: number;
  readonly example: Record<string, unknown>;
}

const ids = { order_id: "o-1", restaurant_id: "r-1", delivery_id: "d-1", courier_id: "c-1" };

const contract: Record<string, EventContract> = {
  OrderPlaced: {
    schema_version: 1,
    example: { order_id: ids.order_id, restaurant_id: ids.restaurant_id, customer_id: "u-1", total_minor: 2450, currency: "EUR", payment_state: "authorized" },
  },
  RestaurantAcceptedOrder: { schema_version: 1, example: { order_id: ids.order_id, restaurant_id: ids.restaurant_id, delivery_id: ids.delivery_id, prep_time_minutes: 15 } },
  RestaurantRejectedOrder: { schema_version: 1, example: { order_id: ids.order_id, restaurant_id: ids.restaurant_id, reason: "out of dough" } },
  OrderCancelled: { schema_version: 1, example: { order_id: ids.order_id, restaurant_id: ids.restaurant_id, reason: "acceptance_deadline" } },
  CourierOffered: {
    schema_version: 1,
    example: { offer_id: "of-1", delivery_id: ids.delivery_id, courier_id: ids.courier_id, expires_at: "2026-11-28T08:00:30.000Z", round: 1 },
  },
  // Version 2 names no losing courier (each gets CourierLostDelivery on their channel); version 1 is still read.
  "CourierAssigned v2": {
    schema_version: 2,
    example: { delivery_id: ids.delivery_id, order_id: ids.order_id, courier_id: ids.courier_id, offer_id: "of-1", version: 2 },
  },
  "CourierAssigned v1": {
    schema_version: 1,
    example: { delivery_id: ids.delivery_id, order_id: ids.order_id, courier_id: ids.courier_id, offer_id: "of-1", version: 2, losing_courier_ids: ["c-2"] },
  },
  CourierLostDelivery: { schema_version: 1, example: { delivery_id: ids.delivery_id, courier_id: "c-2", offer_id: "of-2", version: 2 } },
  // Version 2 names the courier it concerns (routed to courier:<id>); version 1 is still read.
  "DeliveryStatusChanged v2": {
    schema_version: 2,
    example: { delivery_id: ids.delivery_id, courier_id: ids.courier_id, from: "assigned", to: "picked_up", version: 3, transition_id: "t-1" },
  },
  "DeliveryStatusChanged v1": { schema_version: 1, example: { delivery_id: ids.delivery_id, from: "assigned", to: "picked_up", version: 3, transition_id: "t-1" } },
  DeliveryCompleted: {
    schema_version: 1,
    example: { delivery_id: ids.delivery_id, order_id: ids.order_id, courier_id: ids.courier_id, version: 4, total_minor: 2450, currency: "EUR" },
  },
  CourierPositionUpdated: {
    schema_version: 1,
    example: { delivery_id: ids.delivery_id, courier_id: ids.courier_id, lat: 52.521, lng: 13.405, recorded_at: "2026-11-28T08:00:00.000Z", version: 2 },
  },
  // Version 2 carries no body (the chat retention bounds it; clients read it from the chat); version 1 is still read.
  "ChatMessageSent v2": {
    schema_version: 2,
    example: { delivery_id: ids.delivery_id, courier_id: ids.courier_id, message_id: "m-1", sender_role: "customer", sent_at: "2026-11-28T08:00:00.000Z" },
  },
  "ChatMessageSent v1": {
    schema_version: 1,
    example: { delivery_id: ids.delivery_id, courier_id: ids.courier_id, message_id: "m-1", sender_role: "customer", body: "at the door", sent_at: "2026-11-28T08:00:00.000Z" },
  },
  SubstitutionProposed: {
    schema_version: 1,
    example: { order_id: ids.order_id, restaurant_id: ids.restaurant_id, substitution_id: "s-1", line_no: 1, replacement_name: "Lemonade" },
  },
  OrderRefunded: {
    schema_version: 1,
    example: { refund_id: "rf-1", order_id: ids.order_id, restaurant_id: ids.restaurant_id, amount_minor: 2450, currency: "EUR", settlement_reversed: true },
  },
};

interface AnyDefinition {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: Schema.Schema<unknown, unknown, never>;
  readonly make: (input: { tenant_id: string; aggregate_id: string; aggregate_version: number; actor_id: string | null; data: unknown }) => Effect.Effect<Record<string, unknown>, never, Ids>;
}

/** Every event type the module declares (Events.ts exports each definition once). */
const definitions = (Object.values(Events) as ReadonlyArray<unknown>).filter(
  (value) => typeof value === "object" && value !== null && "schemaVersion" in value && "type" in value,
) as unknown as ReadonlyArray<AnyDefinition>;

let n = 0;
const withIds = Effect.provideService(Ids, Ids.of({ next: Effect.sync(() => `e${++n}`) } as Ids));

t.test("every delivery event reaching a realtime channel has a pinned schema_version and payload (mobile realtime event versions are contract-tested)", async (t) => {
  // An event type declared in several versions is pinned once per version ("<type> v<n>").
  const versions = new Map<string, number>();
  for (const d of definitions) versions.set(d.type, (versions.get(d.type) ?? 0) + 1);
  const nameOf = (d: AnyDefinition) => ((versions.get(d.type) ?? 0) > 1 ? `${d.type} v${d.schemaVersion}` : d.type);
  t.same(definitions.map(nameOf).sort(), Object.keys(contract).sort(), "the contract covers every event type and version the module declares, and no other");
  for (const definition of definitions) {
    const pinned = contract[nameOf(definition)];
    if (pinned === undefined) continue;
    t.equal(definition.schemaVersion, pinned.schema_version, `${definition.type}: schema_version ${pinned.schema_version}`);
    const declared = Object.keys((definition.data as unknown as { readonly fields: Record<string, unknown> }).fields).sort();
    t.same(declared, Object.keys(pinned.example).sort(), `${definition.type}: the schema declares exactly the pinned fields (an optional one too)`);
    const decoded = Schema.decodeUnknownEither(definition.data)(pinned.example);
    t.equal(decoded._tag, "Right", `${definition.type}: a version ${pinned.schema_version} payload still decodes`);
    if (decoded._tag !== "Right") continue;
    const envelope = await Effect.runPromise(
      withIds(definition.make({ tenant_id: ids.restaurant_id, aggregate_id: ids.delivery_id, aggregate_version: 2, actor_id: null, data: decoded.right })),
    );
    t.equal(envelope.schema_version, pinned.schema_version, `${definition.type}: the envelope carries its schema_version`);
    t.same(Object.keys(envelope.data as object).sort(), Object.keys(pinned.example).sort(), `${definition.type}: the payload has exactly the pinned fields`);
    t.same(envelope.data, pinned.example, `${definition.type}: the pinned payload goes out unchanged`);
    t.ok(deliveryChannelsFor(envelope as never).length > 0, `${definition.type}: it reaches a realtime channel`);
  }
});
