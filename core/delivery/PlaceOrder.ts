/**
 * POST /orders: places an order from a quote (spec: Endpoints, rule 4). The quote is checked
 * (expired → 409 quote_expired; menu changed → 409 with diff); then the quote's placement is
 * written with its release job (what the authorization is asked with, so nothing the provider
 * holds is ever left unknown to the database); then the payment is authorized OUTSIDE any
 * transaction under a key stable per quote; and only then are the placement moved to `placed`,
 * the order snapshot, its lines, its workflow row, the outbox event and the acceptance deadline
 * written together, and the release job cancelled. Should anything fail between the
 * authorization and that transaction, the release job voids the authorization after the quote
 * expired (core/delivery/PlacementRelease.ts); a retry before then places the order.
 * One order per quote: placing the same quote again answers the order already placed.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict } from "../kernel/Errors.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { Outbox } from "../../ports/Outbox.js";
import { PaymentGateway, type GatewayPayment } from "../../ports/PaymentGateway.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound, requireUser } from "./Access.js";
import { acceptanceDeadlineJob } from "./AcceptanceDeadline.js";
import { OrderPaymentDeclined, QuoteExpired } from "./Errors.js";
import { OrderPlaced } from "./Events.js";
import { OrderId, type Order } from "./model/Order.js";
import type { OrderLine } from "./model/OrderLine.js";
import type { RestaurantOrder } from "./model/RestaurantOrder.js";
import type { Quote } from "./model/Quote.js";
import type { QuotePlacement } from "./model/QuotePlacement.js";
import { placementReleaseAt, placementReleaseJob } from "./PlacementRelease.js";
import { quoteAuthorization } from "./QuoteAuthorization.js";
import { checkMenu } from "./QuoteOrder.js";
import { paymentResolveJob } from "./ResolvePayment.js";
import { withSpan } from "../kernel/Span.js";
import { independentReads } from "../kernel/IndependentReads.js";

/** The customer's view of an order: snapshot, lines and workflow. */
export interface PlacedOrder {
  readonly order: Order;
  readonly lines: ReadonlyArray<OrderLine>;
  readonly workflow: RestaurantOrder;
}

const loadPlaced = (orderId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const [order, workflow, lines] = yield* independentReads(orders.findOrder(orderId), orders.findWorkflow(orderId), orders.orderLines(orderId));
    if (order === null || workflow === null) return yield* Effect.fail(notFound("order"));
    return { order, lines, workflow } satisfies PlacedOrder;
  });

/** The order placed from `quoteId` (by another placement of the same quote). */
const loadPlacedOfQuote = (quoteId: string) =>
  Effect.gen(function* () {
    const placed = yield* (yield* OrdersRepository).findOrderByQuote(quoteId);
    if (placed === null) return yield* Effect.fail(notFound("order"));
    return yield* loadPlaced(placed.id);
  });

/**
 * Writes the quote's placement with its release job, before anything is authorized, or answers
 * the placement already written: a retry goes on with it; one with another payment method is
 * refused (the key is the quote's: quote again to pay with another one); a released one expired.
 */
const startPlacement = (quote: Quote, merchantId: string, paymentMethod: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const at = yield* now;
    const { placement } = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const started = yield* orders.startPlacement({ quoteId: quote.id, merchantId, paymentMethod, state: "authorizing", startedAt: at, updatedAt: at, releaseConfirmedAt: null });
        if (started.started) yield* placementReleaseJob.schedule({ quoteId: quote.id }, { runAt: placementReleaseAt(quote), key: quote.id });
        return started;
      }),
    );
    if (placement.paymentMethod !== paymentMethod) {
      return yield* Effect.fail(
        new Conflict({ code: "quote_payment_method_differs", detail: "this quote is already being placed with another payment method; quote again to pay with this one" }),
      );
    }
    if (placement.state === "released") return yield* Effect.fail(new QuoteExpired({ quoteId: quote.id, detail: "the quote has expired; quote again" }));
    return placement satisfies QuotePlacement;
  });

/** Places the caller's order from `quoteId`, paying with the provider token `paymentMethod`. */
export const placeOrder = (principal: Principal, request: { readonly quoteId: string; readonly paymentMethod: string }) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const orders = yield* OrdersRepository;
    const quote = yield* orders.findQuote(request.quoteId);
    if (quote === null || quote.customerId !== customerId) return yield* Effect.fail(notFound("quote"));
    const existing = yield* orders.findOrderByQuote(quote.id);
    if (existing !== null) return yield* loadPlaced(existing.id);
    const at = yield* now;
    if (at.getTime() >= quote.expiresAt.getTime()) {
      return yield* Effect.fail(new QuoteExpired({ quoteId: quote.id, detail: "the quote has expired; quote again" }));
    }
    const restaurant = yield* (yield* RestaurantsRepository).findRestaurant(quote.restaurantId);
    if (restaurant === null) return yield* Effect.fail(notFound("restaurant"));
    if (restaurant.openingState !== "open" || restaurant.serviceState !== "active") {
      return yield* Effect.fail(new Conflict({ code: "restaurant_closed", detail: "the restaurant closed since the quote" }));
    }
    yield* checkMenu(restaurant, quote.menuVersion, quote.lines.map((l) => l.item_id));

    const placement = yield* startPlacement(quote, restaurant.merchantId, request.paymentMethod);
    if (placement.state === "placed") return yield* loadPlacedOfQuote(quote.id);

    // Outside any transaction, under a key stable per quote (docs/adding-a-module.md, 2. Core).
    const authorization = yield* (yield* PaymentGateway)
      .authorize(quoteAuthorization(quote, placement))
      .pipe(
        Effect.map((payment): { readonly payment: GatewayPayment | null; readonly paymentId: string | null } => ({ payment, paymentId: payment.paymentId })),
        Effect.catchTag("PaymentOutcomeAmbiguous", (e) => Effect.succeed({ payment: null, paymentId: e.paymentId })),
        Effect.catchTag("PaymentDeclined", (e) =>
          Effect.fail(new OrderPaymentDeclined({ declineCode: e.declineCode, detail: "the payment method was declined" })),
        ),
      );
    if (authorization.payment !== null && authorization.payment.status !== "requires_capture") {
      return yield* Effect.fail(new OrderPaymentDeclined({ declineCode: authorization.payment.status, detail: "the payment was not authorized" }));
    }
    const authorized = authorization.payment !== null;

    const settings = yield* DeliverySettings;
    const placedAt = yield* now;
    const orderId = OrderId.make(yield* (yield* Ids).next);
    const order: Order = {
      id: orderId,
      customerId,
      restaurantId: restaurant.id,
      quoteId: quote.id,
      menuVersion: quote.menuVersion,
      merchantId: placement.merchantId,
      dropoffLat: quote.dropoffLat,
      dropoffLng: quote.dropoffLng,
      dropoffAddress: quote.dropoffAddress,
      subtotalMinor: quote.subtotalMinor,
      deliveryFeeMinor: quote.deliveryFeeMinor,
      serviceFeeMinor: quote.serviceFeeMinor,
      taxMinor: quote.taxMinor,
      totalMinor: quote.totalMinor,
      currency: quote.currency,
      scheduledFor: quote.scheduledFor,
      placedAt,
    };
    const lines: OrderLine[] = quote.lines.map((line, i) => ({
      orderId,
      lineNo: i + 1,
      itemId: line.item_id,
      name: line.name,
      quantity: line.quantity,
      unitPriceMinor: line.unit_price_minor,
      modifiers: line.modifiers,
      taxMinor: line.tax_minor,
      lineTotalMinor: line.line_total_minor,
    }));
    const workflow: RestaurantOrder = {
      orderId,
      restaurantId: restaurant.id,
      customerId,
      status: authorized ? "authorized" : "payment_pending",
      paymentState: authorized ? "authorized" : "pending",
      paymentId: authorization.paymentId,
      prepTimeMinutes: null,
      reason: null,
      acceptDeadline: new Date(placedAt.getTime() + settings.acceptDeadlineSeconds * 1000),
      scheduledFor: quote.scheduledFor,
      deliveryId: null,
      version: 1,
      updatedAt: placedAt,
    };
    const outcome = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The placement's row decides between this transaction and the release job, once.
        if (!(yield* orders.finishPlacement(quote.id, "placed", placedAt))) {
          const current = yield* orders.findPlacement(quote.id);
          if (current?.state === "placed") return "exists" as const;
          return yield* Effect.fail(new QuoteExpired({ quoteId: quote.id, detail: "the quote expired while its payment was authorized; the authorization is released" }));
        }
        const written = yield* orders.insertOrder(order, lines, workflow);
        if (written === "exists") return "exists" as const;
        const event = yield* OrderPlaced.make({
          tenant_id: restaurant.id,
          aggregate_id: orderId,
          aggregate_version: 1,
          actor_id: customerId,
          data: {
            order_id: orderId,
            restaurant_id: restaurant.id,
            customer_id: customerId,
            total_minor: order.totalMinor,
            currency: order.currency,
            payment_state: workflow.paymentState,
          },
        });
        yield* (yield* Outbox).append([event]);
        yield* acceptanceDeadlineJob.schedule({ orderId }, { runAt: workflow.acceptDeadline, key: orderId });
        if (!authorized) yield* paymentResolveJob.schedule({ orderId }, { runAt: placedAt, key: orderId });
        yield* (yield* Jobs).cancel(placementReleaseJob.kind, quote.id);
        return "inserted" as const;
      }),
    );
    if (outcome === "exists") return yield* loadPlacedOfQuote(quote.id);
    return { order, lines, workflow } satisfies PlacedOrder;
  }).pipe(withSpan("delivery.placeOrder"));
