/**
 * The settlement of one delivered order as a balanced kernel Ledger transaction (spec: Ledger
 * entry; rule 3): customer charge = restaurant share (subtotal + tax) + courier fee (delivery
 * fee) + platform fee (service fee). Each component has a unique key `order:<id>:<component>`.
 */
import { DeliveryId, SettlementEntryId } from "./model/Ids.js";
import { Effect } from "effect";
import type { ValidationFailed } from "../kernel/Errors.js";
import { type LedgerTransaction, type UnbalancedTransaction, validateTransaction } from "../kernel/Ledger.js";
import type { Order } from "./model/Order.js";
import type { SettlementComponent, SettlementEntry } from "./model/SettlementEntry.js";

/** The source (ledger transaction key) of an order's settlement. */
export const settlementSource = (orderId: string): string => `order:${orderId}:settlement`;

/** The unique key of one component. */
export const componentKey = (orderId: string, component: SettlementComponent): string => `order:${orderId}:${component}`;

/** The settlement of `order`, delivered by `courierId`, as a kernel ledger transaction. */
export const settlementTransaction = (order: Order, courierId: string): LedgerTransaction => ({
  source: settlementSource(order.id),
  entries: [
    { account: `customer:${order.customerId}`, amount_minor: order.totalMinor, currency: order.currency },
    { account: `restaurant:${order.restaurantId}`, amount_minor: -(order.subtotalMinor + order.taxMinor), currency: order.currency },
    { account: `courier:${courierId}`, amount_minor: -order.deliveryFeeMinor, currency: order.currency },
    { account: "platform", amount_minor: -order.serviceFeeMinor, currency: order.currency },
  ].filter((entry) => entry.amount_minor !== 0),
});

const componentOf = (account: string): SettlementComponent =>
  account.startsWith("customer:")
    ? "customer_charge"
    : account.startsWith("restaurant:")
      ? "restaurant_payable"
      : account.startsWith("courier:")
        ? "courier_payable"
        : "platform_fee";

/**
 * The entries to post for `order`'s settlement: checked to balance by the kernel Ledger
 * (`validateTransaction`) before anything is written.
 */
export const settlementEntries = (input: {
  readonly order: Order;
  readonly deliveryId: DeliveryId;
  readonly courierId: string;
  readonly actorId: string;
  readonly at: Date;
  readonly newId: Effect.Effect<string>;
}): Effect.Effect<ReadonlyArray<SettlementEntry>, UnbalancedTransaction | ValidationFailed> =>
  Effect.gen(function* () {
    const tx = yield* validateTransaction(settlementTransaction(input.order, input.courierId));
    const entries: SettlementEntry[] = [];
    for (const entry of tx.entries) {
      const component = componentOf(entry.account);
      entries.push({
        id: SettlementEntryId.make(yield* input.newId),
        orderId: input.order.id,
        deliveryId: input.deliveryId,
        component,
        componentKey: componentKey(input.order.id, component),
        account: entry.account,
        amountMinor: entry.amount_minor,
        currency: entry.currency,
        reverses: null,
        actorId: input.actorId,
        reason: null,
        createdAt: input.at,
      });
    }
    return entries;
  });
