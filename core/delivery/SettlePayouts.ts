/**
 * Settlement and payout (spec: DeliveryCompleted → settlement; "settlement uses an event-id
 * inbox; dead-letter pages operations"). The completion posted the balanced settlement entries
 * in its own transaction; this consumer of DeliveryCompleted turns them into the participants'
 * payables, each placed in that participant's daily payout batch.
 *
 * The consumer runs under the relay's event-id inbox (a redelivered event is claimed once) and
 * only schedules one durable `delivery.settlement` job keyed by the order, so the payout work has
 * bounded retries of its own and dead-letters where the operators' page
 * (`GET /operator/settlement-dead-letters`) finds it, without replaying the event's other
 * consumers. The job records payables under the entries' unique component keys: running it
 * twice records nothing twice.
 */
import { PayableId } from "./model/Ids.js";
import { Effect, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { SettlementNotPosted } from "./Errors.js";
import { DeliveryCompleted } from "./Events.js";
import type { Payable } from "./model/Payable.js";
import type { SettlementEntry } from "./model/SettlementEntry.js";

/** Attempts of one settlement job before it is dead-lettered (backoff between them). */
export const settlementMaxAttempts = 5;

/** The participants' components: what the platform pays out. */
const payableComponents = new Set<SettlementEntry["component"]>(["restaurant_payable", "courier_payable"]);

/** The payout batch of `account` for the UTC day of `at`. */
export const payoutBatchOf = (account: string, currency: string, at: Date): string => `${account}:${currency}:${at.toISOString().slice(0, 10)}`;

/** What a settlement job carries: the event it came from and the order it settles. */
export const SettlementPayload = Schema.Struct({ eventId: Schema.String, orderId: Schema.String, deliveryId: Schema.String });

/**
 * The payables of an order's posted settlement: the completion's participant entries, less those
 * a correction reversed (a reversed component is owed to nobody).
 */
export const payablesOf = (entries: ReadonlyArray<SettlementEntry>, newId: Effect.Effect<string>): Effect.Effect<ReadonlyArray<Payable>> => {
  const reversed = new Set(entries.flatMap((entry) => (entry.reverses === null ? [] : [entry.reverses])));
  return Effect.forEach(
    entries.filter((entry) => entry.reverses === null && !reversed.has(entry.componentKey) && payableComponents.has(entry.component)),
    (entry) =>
      Effect.map(newId, (id) => ({
        id: PayableId.make(id),
        orderId: entry.orderId,
        deliveryId: entry.deliveryId,
        componentKey: entry.componentKey,
        account: entry.account,
        amountMinor: -entry.amountMinor,
        currency: entry.currency,
        payoutBatch: payoutBatchOf(entry.account, entry.currency, entry.createdAt),
        createdAt: entry.createdAt,
        reverses: null,
      })),
  );
};

/**
 * The reversing payables an order's posted reversals call for: one per recorded payable whose
 * component a reversal entry undoes, negated, under the reversal's component key, in the
 * participant's payout batch of the reversal's day.
 */
export const reversingPayablesOf = (
  recorded: ReadonlyArray<Payable>,
  entries: ReadonlyArray<SettlementEntry>,
  newId: Effect.Effect<string>,
): Effect.Effect<ReadonlyArray<Payable>> => {
  const owed = new Map(recorded.filter((p) => p.reverses === null).map((p) => [p.componentKey, p]));
  const undone = new Set(recorded.flatMap((p) => (p.reverses === null ? [] : [p.reverses])));
  const reversals = entries.flatMap((entry) => {
    const payable = entry.reverses === null || undone.has(entry.reverses) ? undefined : owed.get(entry.reverses);
    return payable === undefined ? [] : [{ entry, payable }];
  });
  return Effect.forEach(reversals, ({ entry, payable }) =>
    Effect.map(newId, (id) => ({
      ...payable,
      id: PayableId.make(id),
      componentKey: entry.componentKey,
      amountMinor: -payable.amountMinor,
      payoutBatch: payoutBatchOf(payable.account, payable.currency, entry.createdAt),
      createdAt: entry.createdAt,
      reverses: payable.componentKey,
    })),
  );
};

/**
 * Records what an order's posted settlement calls for, in the caller's transaction: the payables
 * of its unreversed participant components and the reversals of recorded payables. The order's
 * workflow row is locked first, by the settlement job and by a reversal alike, so neither reads
 * the entries while the other writes. Recording is keyed by component: running it again records
 * nothing twice. Answers how many payables were new.
 */
export const recordOrderPayables = (orderId: string) =>
  Effect.gen(function* () {
    yield* (yield* OrdersRepository).findWorkflow(orderId, { forUpdate: true });
    const entries = yield* (yield* SettlementLedger).entriesOfOrder(orderId);
    if (entries.length === 0) return yield* Effect.fail(new SettlementNotPosted({ orderId, detail: `Order ${orderId} has no posted settlement.` }));
    const ids = yield* Ids;
    const payables = yield* Payables;
    const owed = yield* payablesOf(entries, ids.next);
    const recorded = yield* payables.record(owed);
    const reversing = yield* reversingPayablesOf(yield* payables.ofOrder(orderId), entries, ids.next);
    return recorded + (yield* payables.record(reversing));
  });

/** Records the payables of one completed order; fails (and is retried) while its settlement is not posted. */
export const settlementJob = defineJob({
  kind: "delivery.settlement",
  payload: SettlementPayload,
  handle: (payload) =>
    (Effect.flatMap(Transactions, (tx) => tx.run(recordOrderPayables(payload.orderId))) satisfies Effect.Effect<
      number,
      SettlementNotPosted,
      Ids | Transactions | SettlementLedger | Payables | OrdersRepository
    >).pipe(withSpan("delivery.settlement")),
});

const decodeCompleted = Schema.decodeUnknownOption(DeliveryCompleted.envelope);

/** Schedules the settlement job of one DeliveryCompleted event (keyed by the order: once per order). */
export const scheduleSettlement = (event: EventEnvelope): Effect.Effect<void, never, Jobs> =>
  Effect.gen(function* () {
    const decoded = decodeCompleted(event);
    if (decoded._tag === "None") return;
    const data = decoded.value.data;
    yield* settlementJob.schedule(
      { eventId: event.id, orderId: data.order_id, deliveryId: data.delivery_id },
      { runAt: new Date(event.occurred_at), key: `settle:${data.order_id}`, maxAttempts: settlementMaxAttempts },
    );
  });

/** The settlement consumer (shaped as adapters/worker's Consumer; the relay's inbox dedupes by event id). */
export const deliverySettlementConsumer = {
  name: "delivery.settlement",
  handles: (event: EventEnvelope): boolean => event.type === DeliveryCompleted.type,
  handle: scheduleSettlement,
};
