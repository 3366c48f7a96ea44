/**
 * Shipment tracking (spec: carrier tracking updates arrive as signed webhooks and by a polling
 * job; tracking may lag). Every update is applied once per carrier event id (an event receipt,
 * unique per consumer and event): it goes on the order's timeline as `shipment.<status>` and a
 * `delivered` update moves the shipment to `delivered` by a conditional update. An update for
 * no known shipment is acknowledged and ignored (the carrier must not retry it forever).
 * The poll asks the carrier about every shipment still in transit, hourly; its event ids are
 * `poll:<shipment>:<status>`, so each status is recorded once however often it is polled.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { Transactions } from "../../ports/Transactions.js";
import { CarrierTracking, CarrierWebhookReceiver, type TrackingUpdate } from "../../ports/commerce/Carriers.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { recordTimeline } from "./OrderRecords.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";
import type { ShipmentId } from "./model/Ids.js";

/** The receipts' consumer name of tracking updates. */
export const carrierTrackingConsumerName = "commerce.carrier-tracking";

/** What applying an update did. */
export interface TrackingReceipt {
  readonly eventId: string;
  readonly duplicate: boolean;
  readonly status: "applied" | "ignored";
  readonly shipmentId: ShipmentId | null;
}

/** Applies one tracking update, once per carrier event id. */
export const applyTrackingUpdate = (update: TrackingUpdate) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const fresh = yield* orders.receiveEvent(carrierTrackingConsumerName, `${update.carrier}:${update.eventId}`, at);
        const shipment = yield* orders.findShipmentByTracking(update.carrier, update.trackingNumber);
        const receipt = (status: TrackingReceipt["status"], duplicate: boolean): TrackingReceipt => ({
          eventId: update.eventId,
          duplicate,
          status,
          shipmentId: shipment?.id ?? null,
        });
        if (!fresh) return receipt(shipment === null ? "ignored" : "applied", true);
        if (shipment === null) return receipt("ignored", false);
        if (update.status === "delivered") yield* orders.markShipmentDelivered(shipment.id);
        yield* recordTimeline({ id: shipment.orderId, storeId: shipment.storeId }, `shipment.${update.status}`, `carrier:${update.carrier}`, {
          shipment_id: shipment.id,
          tracking_number: update.trackingNumber,
          carrier_event_id: update.eventId,
          occurred_at: update.occurredAt.toISOString(),
        });
        return receipt("applied", false);
      }),
    );
  }).pipe(withSpan("commerce.applyTrackingUpdate"));

/** POST /v1/webhooks/carrier: verify the delivery (400 when it is not a signed, timely carrier event), then apply it. */
export const receiveCarrierWebhook = (delivery: { readonly rawBody: string; readonly signatureHeader: string | undefined }) =>
  Effect.gen(function* () {
    const update = yield* (yield* CarrierWebhookReceiver).verify({ ...delivery, now: yield* now });
    return yield* applyTrackingUpdate(update);
  }).pipe(withSpan("commerce.receiveCarrierWebhook"));

const pollBatch = 200;

/** Asks the carriers about every shipment in transit; answers how many updates were applied. */
export const pollCarriers = Effect.gen(function* () {
  const orders = yield* OrdersRepository;
  const carriers = yield* CarrierTracking;
  let after: string | null = null;
  let applied = 0;
  for (;;) {
    const batch: ReadonlyArray<{ readonly id: ShipmentId; readonly carrier: string | null; readonly trackingNumber: string | null }> =
      yield* orders.shipmentsInTransit(after, pollBatch);
    for (const shipment of batch) {
      if (shipment.carrier === null || shipment.trackingNumber === null) continue;
      const carrier = shipment.carrier;
      const trackingNumber = shipment.trackingNumber;
      // One carrier failing must not stop the others: that shipment is asked again next hour.
      const answer = yield* carriers.track(carrier, trackingNumber).pipe(Effect.catchAll(() => Effect.succeed(null)));
      if (answer === null) continue;
      const receipt = yield* applyTrackingUpdate({ eventId: `poll:${shipment.id}:${answer.status}`, carrier, trackingNumber, ...answer });
      if (receipt.status === "applied" && !receipt.duplicate) applied += 1;
    }
    if (batch.length < pollBatch) return applied;
    after = batch[batch.length - 1]!.id;
  }
}).pipe(withSpan("commerce.pollCarriers"));

const hourMs = 60 * 60_000;

/** The hourly poll (key `hour-<iso hour>`); each run schedules the next hour's. */
export const carrierPollJob: JobDefinition<{ readonly hour: string }, CommerceServices> = defineJob({
  kind: "commerce.carrier-poll",
  payload: Schema.Struct({ hour: Schema.String }),
  handle: ({ hour }) =>
    Effect.gen(function* () {
      yield* pollCarriers;
      yield* scheduleCarrierPoll(Date.parse(hour));
    }),
});

/** Schedules the first poll after `nowMs` (on the hour); a no-op when it is scheduled already. */
export const scheduleCarrierPoll = (nowMs: number) => {
  const runAt = new Date((Math.floor(nowMs / hourMs) + 1) * hourMs);
  const hour = runAt.toISOString();
  return carrierPollJob.schedule({ hour }, { runAt, key: `hour-${hour}` });
};
