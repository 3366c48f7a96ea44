/**
 * The durable timer of a scheduled order (spec: should-have, "dispatched in time"): accepting a
 * scheduled order does not offer it at once; this job, due 20 minutes before the slot
 * (ScheduledSlot.ts), starts its first dispatch round — the same step as offer expiry, which
 * offers a pending delivery without a live offer and does nothing for one already assigned or
 * cancelled.
 */
import { Effect, Schema } from "effect";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import type { Transactions } from "../../ports/Transactions.js";
import { expireOffers, type DispatchServices } from "./Dispatch.js";

export const scheduledDispatchJob: JobDefinition<{ readonly deliveryId: string }, DispatchServices | Transactions> = defineJob({
  kind: "delivery.scheduled_dispatch",
  payload: Schema.Struct({ deliveryId: Schema.String }),
  handle: (p) => Effect.asVoid(expireOffers(p.deliveryId)),
});
