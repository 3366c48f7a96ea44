/**
 * Location retention (spec: precise locations are retained briefly; issue rule 5): a durable
 * job deletes samples older than DELIVERY_LOCATION_RETENTION_SECONDS (default one hour), clears
 * couriers' (approximate) dispatch positions located before that, redacts the customer's drop-off
 * (point to 3 decimals, address masked: model/PriceSnapshot.ts) of quotes, orders and deliveries
 * finished longer ago than that, deletes chat messages past the chat retention, redacts the
 * payment-method tokens nothing can send again (PaymentMethodRetention.ts), and schedules its
 * next pass in the next five-minute slot. A pass is keyed by its slot number, so
 * the chain a worker starts (`scheduleLocationRetention`) and the chain already running meet in
 * the same key and never double.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { Jobs } from "../../ports/Jobs.js";
import { withSpan } from "../kernel/Span.js";
import { redactSettledPaymentMethods } from "./PaymentMethodRetention.js";

export const retentionIntervalMs = 5 * 60_000;

/** Deletes the samples past retention and clears dispatch positions as old; answers how many samples. */
export const purgeLocations = Effect.gen(function* () {
  const settings = yield* DeliverySettings;
  const at = yield* now;
  const cutoff = new Date(at.getTime() - settings.locationRetentionSeconds * 1000);
  yield* (yield* DispatchRepository).clearCourierLocationsBefore(cutoff);
  return yield* (yield* LocationSamples).deleteRecordedBefore(cutoff);
}).pipe(withSpan("delivery.purgeLocations"));

/**
 * Redacts the drop-off of deliveries delivered or cancelled before the location retention, of
 * their orders and quotes, of orders rejected or cancelled without a delivery before it, and of
 * quotes never placed that expired before it; answers how many rows. Active deliveries keep theirs.
 */
export const redactDropoffs = Effect.gen(function* () {
  const settings = yield* DeliverySettings;
  const at = yield* now;
  const cutoff = new Date(at.getTime() - settings.locationRetentionSeconds * 1000);
  const orders = yield* (yield* OrdersRepository).redactDropoffsFinishedBefore(cutoff);
  return orders + (yield* (yield* DispatchRepository).redactDropoffsEndedBefore(cutoff));
}).pipe(withSpan("delivery.redactDropoffs"));

/** Deletes the chat messages of deliveries that ended before the chat retention; answers how many. */
export const purgeChat = Effect.gen(function* () {
  const settings = yield* DeliverySettings;
  const at = yield* now;
  return yield* (yield* ChatMessages).deleteEndedBefore(new Date(at.getTime() - settings.chatRetentionSeconds * 1000));
}).pipe(withSpan("delivery.purgeChat"));

/** The pass of the slot after the one `atMs` is in; it runs at the start of that slot. */
const nextPass = (atMs: number): number => Math.floor(atMs / retentionIntervalMs) + 1;

const schedulePass = (pass: number) =>
  locationRetentionJob.schedule({ pass }, { runAt: new Date(pass * retentionIntervalMs), key: `pass-${pass}` });

export const locationRetentionJob: JobDefinition<{ readonly pass: number }, DeliverySettings | LocationSamples | DispatchRepository | OrdersRepository | ChatMessages | Jobs> = defineJob({
  kind: "delivery.location_retention",
  payload: Schema.Struct({ pass: Schema.Int }),
  handle: (p) =>
    Effect.gen(function* () {
      yield* purgeLocations;
      yield* redactDropoffs;
      yield* purgeChat;
      yield* redactSettledPaymentMethods;
      yield* schedulePass(Math.max(p.pass + 1, nextPass((yield* now).getTime())));
    }),
});

/** Starts the retention chain when a worker starts (a no-op while the next pass is scheduled). */
export const scheduleLocationRetention = (nowMs: number): Effect.Effect<void, never, Jobs> => Effect.asVoid(schedulePass(nextPass(nowMs)));
