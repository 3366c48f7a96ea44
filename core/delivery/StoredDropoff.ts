/**
 * The drop-off of the caller's quote or order as stored now (spec: precise customer locations are
 * retained briefly): precise until the location retention pass redacts it, then to 3 decimals with
 * the address masked (LocationRetention.ts). The stored answers of POST /orders/quote and
 * POST /orders keep no drop-off; a replay shows this one (adapters/koa/delivery/OrderRoutes.ts).
 */
import { Effect } from "effect";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { Principal } from "../../ports/Principal.js";
import { notFound, requireUser } from "./Access.js";
import { withSpan } from "../kernel/Span.js";

/** A drop-off as a quote or an order stores it. */
export interface StoredDropoff {
  readonly dropoffLat: number;
  readonly dropoffLng: number;
  readonly dropoffAddress: string;
}

const dropoffOf = (record: StoredDropoff): StoredDropoff => ({ dropoffLat: record.dropoffLat, dropoffLng: record.dropoffLng, dropoffAddress: record.dropoffAddress });

/** The drop-off of the caller's quote; NotFound for another customer's. */
export const quoteDropoff = (principal: Principal, quoteId: string) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const quote = yield* (yield* OrdersRepository).findQuote(quoteId);
    if (quote === null || quote.customerId !== customerId) return yield* Effect.fail(notFound("quote"));
    return dropoffOf(quote);
  }).pipe(withSpan("delivery.quoteDropoff"));

/** The drop-off of the caller's order; NotFound for another customer's. */
export const orderDropoff = (principal: Principal, orderId: string) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    if (order === null || order.customerId !== customerId) return yield* Effect.fail(notFound("order"));
    return dropoffOf(order);
  }).pipe(withSpan("delivery.orderDropoff"));
