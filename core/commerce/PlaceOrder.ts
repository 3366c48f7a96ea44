/**
 * Command: checkout (POST /v1/orders). In ONE transaction: the idempotency record (key scoped
 * to the account or guest cart, with the payload's hash), the cart's move to checked_out, the
 * server-side price (quantities and promotions revalidated, promotion uses counted by a
 * conditional update), stock reserved per location by conditional updates (a line split across
 * locations when needed; the loser of a race gets 409 insufficient_stock), the pending order
 * with its immutable lines, its reservations with `expiresAt`, its payment record, the expiry
 * job and the outbox row. Then, outside the transaction, the payment is authorized under the
 * order's stable key (core/commerce/OrderPayments.ts).
 *
 * The same key and payload answers the order it made (as it stands now) and never authorizes
 * again; the same key with another payload is 422 idempotency_key_reused.
 */
import { Duration, Effect } from "effect";
import { IdempotencyKeyReused, NotFound, ValidationFailed, type FieldError } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Order, OrderLine, ShippingAddress } from "./model/Order.js";
import type { OrderPayment } from "./model/OrderPayment.js";
import type { Reservation } from "./model/Reservation.js";
import { loadOwnedCart, loadStore, shopperActor, type Shopper } from "./Access.js";
import { priceCartLines } from "./Carts.js";
import { independentReads } from "../kernel/IndependentReads.js";
import { checkCheckoutRisk } from "./CheckoutRisk.js";
import { checkoutRiskSignals } from "./RiskSignals.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { RiskSignalDigests } from "../../ports/commerce/RiskSignalDigests.js";
import { CartCheckedOut, InsufficientStock, PriceChanged, PromotionInvalid } from "./Errors.js";
import { OrderPlaced } from "./Events.js";
import { authorizeOrderPayment, orderPaymentKey, paymentResolutionDelay, paymentResolutionJob } from "./OrderPayments.js";
import { recordTimeline } from "./OrderRecords.js";
import { reservationExpiryJob } from "./ReservationExpiry.js";
import { withSpan } from "../kernel/Span.js";
import { type CartId, OrderId, OrderLineId, ReservationId, type StoreId, type VariantId } from "./model/Ids.js";
import type { StockLevel } from "./model/StockLevel.js";

/** How long checkout holds stock before the expiry job releases it (docs/decisions.md, E-commerce). */
export const reservationLifetime = Duration.minutes(15);

export interface PlaceOrderInput {
  readonly cartId: CartId;
  readonly paymentMethod: string;
  readonly shippingAddress: ShippingAddress;
  readonly email: string | null;
  readonly promotionCodes: ReadonlyArray<string>;
  readonly expectedTotalMinor: number | null;
  readonly idempotencyKey: string;
  /** The client's address as the HTTP adapter resolved it (a risk signal; not part of the request's payload). */
  readonly clientIp: string | null;
}

/** The canonical form of a request (sorted keys), hashed by the repository. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.entries(value)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
          .join(",")}}`
      : JSON.stringify(value ?? null);

const validate = (input: PlaceOrderInput): FieldError[] => {
  const a = input.shippingAddress;
  const required = (path: string, v: string, max: number) => (v.trim().length === 0 || v.length > max ? [{ path, message: `1 to ${max} characters` }] : []);
  return [
    ...(input.idempotencyKey.length < 1 || input.idempotencyKey.length > 255 ? [{ path: "idempotency_key", message: "1 to 255 characters" }] : []),
    ...required("payment_method", input.paymentMethod, 200),
    ...required("shipping_address/name", a.name, 200),
    ...required("shipping_address/line1", a.line1, 200),
    ...(a.line2 === null || a.line2.length <= 200 ? [] : [{ path: "shipping_address/line2", message: "at most 200 characters" }]),
    ...required("shipping_address/city", a.city, 100),
    ...required("shipping_address/postcode", a.postcode, 20),
    ...(/^[A-Z]{2}$/.test(a.country) ? [] : [{ path: "shipping_address/country", message: "an ISO 3166-1 alpha-2 code" }]),
    ...(input.email === null || (input.email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(input.email)) ? [] : [{ path: "email", message: "an e-mail address of at most 254 characters" }]),
    ...(input.expectedTotalMinor === null || (Number.isSafeInteger(input.expectedTotalMinor) && input.expectedTotalMinor >= 0)
      ? []
      : [{ path: "expected_total_minor", message: "an integer of minor units" }]),
  ];
};

/**
 * Reserves `quantity` of a variant across locations, most available first (by `stock`, the cart's
 * stock rows read once per checkout); the reservations made.
 */
const reserveLine = (orderId: OrderId, storeId: StoreId, variantId: VariantId, quantity: number, expiresAt: Date, stock: ReadonlyArray<StockLevel>) =>
  Effect.gen(function* () {
    const inventory = yield* InventoryRepository;
    const ids = yield* Ids;
    const at = yield* now;
    const levels = stock
      .filter((s) => s.variantId === variantId && s.storeId === storeId)
      .sort((a, b) => b.onHand - b.reserved - (a.onHand - a.reserved) || (a.locationId < b.locationId ? -1 : 1));
    let remaining = quantity;
    const made: Reservation[] = [];
    for (const level of levels) {
      if (remaining === 0) break;
      let take = Math.min(remaining, level.onHand - level.reserved);
      // The conditional update decides; after a lost race, re-read this location once and retry.
      for (let attempt = 0; take > 0 && attempt < 3; attempt++) {
        if (yield* inventory.reserve(variantId, level.locationId, take, at)) {
          made.push({ id: ReservationId.make(yield* ids.next), storeId, orderId, variantId, locationId: level.locationId, quantity: take, status: "active", expiresAt, createdAt: at, updatedAt: at });
          remaining -= take;
          break;
        }
        const fresh = yield* inventory.findStock(variantId, level.locationId);
        take = fresh === null ? 0 : Math.min(remaining, fresh.onHand - fresh.reserved);
      }
    }
    if (remaining > 0) {
      const available = quantity - remaining;
      return yield* Effect.fail(new InsufficientStock({ variantId, requested: quantity, available }));
    }
    return made;
  });

/** What checkout answers: the order and whether it is the replay of an earlier request. */
export interface PlacedOrder {
  readonly order: Order;
  readonly replayed: boolean;
}

export const placeOrder = (shopper: Shopper, input: PlaceOrderInput) =>
  Effect.gen(function* () {
    const errors = validate(input);
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    // Only digests of the account, the client's network and the e-mail are compared and stored.
    const digests = yield* RiskSignalDigests;
    const signals = checkoutRiskSignals(shopper.kind === "customer" ? shopper.userId : null, input.clientIp, input.email).map((signal) => ({
      kind: signal.kind,
      digest: digests.digest(signal.text),
    }));
    const cart = yield* loadOwnedCart(shopper, input.cartId);
    const store = yield* loadStore(cart.storeId);
    const scope = shopper.kind === "customer" ? `user:${shopper.userId}` : `cart:${cart.id}`;
    // A retry from another address is the same request.
    const { idempotencyKey, clientIp: _clientIp, ...request } = input;
    const payload = canonical(request);
    const orders = yield* OrdersRepository;
    const carts = yield* CartsRepository;
    const ids = yield* Ids;
    const orderId = OrderId.make(yield* ids.next);
    const actor = shopperActor(shopper);

    const written = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const claim = yield* orders.claimCheckout({ storeId: store.id, scope, idempotencyKey, orderId, createdAt: at }, payload);
        if (!claim.claimed) {
          if (!claim.samePayload) return yield* Effect.fail(new IdempotencyKeyReused({}));
          return { _tag: "Replay", orderId: claim.existing.orderId } as const;
        }
        // Under the signals' locks until commit, so checkouts sent at once are counted in turn;
        // taken before any stock row (no deadlock with the reservations below).
        yield* checkCheckoutRisk(signals);
        if (!(yield* carts.markCheckedOut(cart.id, at))) return yield* Effect.fail(new CartCheckedOut({ cartId: cart.id }));
        const cartLines = yield* carts.linesOf(cart.id);
        if (cartLines.length === 0) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "cart_id", message: "the cart is empty" }] }));
        // Stock levels are read with the prices; reservations are conditional updates below.
        const inventory = yield* InventoryRepository;
        const [{ price, promotions }, stock] = yield* independentReads(
          priceCartLines(store, cartLines, input.promotionCodes),
          inventory.stockOf(cartLines.map((line) => line.variantId)),
        );
        if (input.expectedTotalMinor !== null && input.expectedTotalMinor !== price.totalMinor) {
          return yield* Effect.fail(
            new PriceChanged({ diff: { expected_total_minor: input.expectedTotalMinor, total_minor: price.totalMinor, currency: price.currency } }),
          );
        }
        // Without a confirmed total, the catalog prices must be the ones the shopper was last shown
        // (the subtotal: promotion codes given at checkout change the total, not the catalog prices).
        if (input.expectedTotalMinor === null && cart.seenSubtotalMinor !== null && cart.seenSubtotalMinor !== price.subtotalMinor) {
          return yield* Effect.fail(
            new PriceChanged({ diff: { expected_total_minor: cart.seenTotalMinor ?? cart.seenSubtotalMinor, total_minor: price.totalMinor, currency: price.currency } }),
          );
        }
        const catalog = yield* CatalogRepository;
        for (const p of promotions) {
          if (!(yield* catalog.usePromotion(p.id))) return yield* Effect.fail(new PromotionInvalid({ code: p.code ?? p.id }));
        }
        const expiresAt = new Date(at.getTime() + Duration.toMillis(reservationLifetime));
        const reservations: Reservation[] = [];
        // Lines in variant order, so concurrent checkouts lock stock rows in one order (no deadlock).
        for (const line of [...cartLines].sort((a, b) => (a.variantId < b.variantId ? -1 : 1))) {
          reservations.push(...(yield* reserveLine(orderId, store.id, line.variantId, line.quantity, expiresAt, stock)));
        }
        const order: Order = {
          id: orderId,
          storeId: store.id,
          customerId: shopper.kind === "customer" ? shopper.userId : null,
          cartId: cart.id,
          status: "pending",
          currency: price.currency,
          subtotalMinor: price.subtotalMinor,
          discountMinor: price.discountMinor,
          taxMinor: price.taxMinor,
          totalMinor: price.totalMinor,
          paymentIntentRef: null,
          email: input.email,
          shippingAddress: input.shippingAddress,
          version: 1,
          createdAt: at,
          updatedAt: at,
        };
        const lines: OrderLine[] = [];
        for (const l of price.lines) {
          lines.push({
            id: OrderLineId.make(yield* ids.next),
            storeId: store.id,
            orderId,
            variantId: l.variantId,
            sku: l.sku,
            quantity: l.quantity,
            unitPriceMinor: l.unitPriceMinor,
            discountMinor: l.discountMinor,
            taxMinor: l.taxMinor,
            totalMinor: l.totalMinor,
          });
        }
        yield* orders.insertOrder(order, lines);
        // The uses counted above, so an order that fails, expires or is cancelled gives them back.
        yield* catalog.recordPromotionUses({ storeId: store.id, orderId, promotionIds: promotions.map((p) => p.id) });
        yield* inventory.insertReservations(reservations);
        // Counted under each signal should the payment be declined (OrderPayments.ts, decline).
        yield* (yield* CheckoutRiskRepository).recordSignals(orderId, signals.map((signal) => signal.digest), at);
        const payment: OrderPayment = {
          orderId,
          storeId: store.id,
          merchantId: store.merchantId,
          paymentId: null,
          idempotencyKey: orderPaymentKey(orderId),
          paymentMethod: input.paymentMethod,
          status: "authorizing",
          amountMinor: order.totalMinor,
          capturedMinor: 0,
          refundedMinor: 0,
          updatedAt: at,
        };
        yield* orders.insertPayment(payment);
        yield* recordTimeline(order, "order.pending", actor, { total_minor: order.totalMinor, currency: order.currency });
        yield* reservationExpiryJob.schedule({ orderId }, { runAt: expiresAt, key: `order:${orderId}` });
        // The authorization runs after this commit: should its answer never be recorded (the
        // process stops, the request is cut off, the recording fails), the resolution job looks
        // the payment up under the order's key. It finds nothing to do once the answer is in.
        yield* paymentResolutionJob.schedule({ orderId }, { runAt: new Date(at.getTime() + Duration.toMillis(paymentResolutionDelay)), key: `order:${orderId}` });
        const event = yield* OrderPlaced.make({
          tenant_id: store.id,
          aggregate_id: orderId,
          aggregate_version: order.version,
          actor_id: actor,
          data: { order_id: orderId, customer_id: order.customerId, total_minor: order.totalMinor, currency: order.currency },
        });
        yield* (yield* Outbox).append([event]);
        return { _tag: "Placed", order, payment } as const;
      }),
    );

    if (written._tag === "Replay") {
      const order = yield* orders.findOrder(written.orderId);
      if (order === null) return yield* Effect.fail(new NotFound({ resource: "order" }));
      const replay: PlacedOrder = { order, replayed: true };
      return replay;
    }
    const order = yield* authorizeOrderPayment(written, actor);
    const placed: PlacedOrder = { order, replayed: false };
    return placed;
  }).pipe(withSpan("commerce.placeOrder"));
