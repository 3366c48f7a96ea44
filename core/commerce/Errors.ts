/** The e-commerce module's errors (docs/conventions.md, Errors): stable codes, categories for the one mapper. */
import { DomainError } from "../kernel/Errors.js";

/** Not enough available stock for a line (the loser of a stock race gets this too). */
export class InsufficientStock extends DomainError("InsufficientStock", "insufficient_stock", "conflict")<{
  readonly variantId: string;
  readonly requested: number;
  readonly available: number;
}> {
  get problemExtensions() {
    return { variant_id: this.variantId, requested: this.requested, available: this.available };
  }
}

/** The variant is not purchasable (inactive, archived, another store's or unknown). */
export class VariantUnavailable extends DomainError("VariantUnavailable", "variant_unavailable", "conflict")<{
  readonly variantId: string;
}> {
  get problemExtensions() {
    return { variant_id: this.variantId };
  }
}

/** The server-side total differs from the total the customer confirmed; `diff` says how. */
export class PriceChanged extends DomainError("PriceChanged", "price_changed", "conflict")<{
  readonly diff: { readonly expected_total_minor: number; readonly total_minor: number; readonly currency: string };
}> {}

/**
 * The payment method was declined: the order is `failed` and its reservations are released.
 * HTTP 402 (category payment_required).
 */
export class PaymentDeclinedForOrder extends DomainError("PaymentDeclinedForOrder", "payment_declined", "payment_required")<{
  readonly orderId: string;
  readonly declineCode: string;
}> {
  get problemExtensions() {
    return { order_id: this.orderId, decline_code: this.declineCode };
  }
}

/** The order was dispatched: cancellation is refused (use a return). */
export class OrderDispatched extends DomainError("OrderDispatched", "order_dispatched", "conflict")<{ readonly orderId: string }> {}

/** The order's state does not allow this transition. */
export class OrderStateConflict extends DomainError("OrderStateConflict", "order_state_conflict", "conflict")<{
  readonly orderId: string;
  readonly from: string;
  readonly to: string;
}> {}

/** The cart was already checked out (a new cart is needed). */
export class CartCheckedOut extends DomainError("CartCheckedOut", "cart_checked_out", "conflict")<{ readonly cartId: string }> {}

/** An adjustment would push on_hand below reserved (or below 0). */
export class StockBelowReserved extends DomainError("StockBelowReserved", "stock_below_reserved", "conflict")<{
  readonly variantId: string;
  readonly locationId: string;
}> {}

/** The promotion code is already used in this store (409). */
export class PromotionCodeTaken extends DomainError("PromotionCodeTaken", "promotion_code_taken", "conflict")<{ readonly code: string }> {}

/** The SKU is already used in this store. */
export class SkuTaken extends DomainError("SkuTaken", "sku_taken", "conflict")<{ readonly sku: string }> {}

/** The lines asked for are not returnable (not shipped, more than shipped minus returned, past the window). */
export class ReturnNotEligible extends DomainError("ReturnNotEligible", "return_not_eligible", "unprocessable")<{
  readonly orderLineId: string;
}> {}

/** The return's stage does not allow this step. */
export class ReturnStateConflict extends DomainError("ReturnStateConflict", "return_state_conflict", "conflict")<{
  readonly returnId: string;
  readonly from: string;
  readonly to: string;
}> {}

/** A promotion code that does not exist, is outside its window or used up (422). */
export class PromotionInvalid extends DomainError("PromotionInvalid", "promotion_invalid", "unprocessable")<{ readonly code: string }> {}

/** The carrier's tracking number is already another shipment's (a number names one parcel): 409. */
export class TrackingNumberInUse extends DomainError("TrackingNumberInUse", "tracking_number_in_use", "conflict")<{
  readonly carrier: string;
  readonly trackingNumber: string;
}> {
  get problemExtensions() {
    return { carrier: this.carrier, tracking_number: this.trackingNumber };
  }
}

/**
 * The order has not wholly shipped, so its payment is not captured yet and a refund could not be
 * paid: a return waits until the order is dispatched (409).
 */
export class OrderNotDispatched extends DomainError("OrderNotDispatched", "order_not_dispatched", "conflict")<{ readonly orderId: string; readonly status: string }> {
  get problemExtensions() {
    return { order_id: this.orderId, status: this.status };
  }
}

/** Another warehouse operator holds the fulfillment task (the loser of a take race gets this too): 409. */
export class FulfillmentTaskTaken extends DomainError("FulfillmentTaskTaken", "fulfillment_task_taken", "conflict")<{ readonly taskId: string }> {
  get problemExtensions() {
    return { task_id: this.taskId };
  }
}

/** The fulfillment task is done (its order dispatched or its cancellation requested): nobody takes or is assigned it (409). */
export class FulfillmentTaskClosed extends DomainError("FulfillmentTaskClosed", "fulfillment_task_closed", "conflict")<{ readonly taskId: string }> {
  get problemExtensions() {
    return { task_id: this.taskId };
  }
}

/** A warehouse operator dispatches only an order whose fulfillment task is assigned to them (403; owners dispatch any). */
export class FulfillmentTaskNotAssigned extends DomainError("FulfillmentTaskNotAssigned", "fulfillment_task_not_assigned", "forbidden")<{ readonly orderId: string }> {
  get problemExtensions() {
    return { order_id: this.orderId };
  }
}

/** The store's last owner cannot lose `owner`: a store always keeps one (409; commerce migration 16 holds it too). */
export class LastStoreOwner extends DomainError("LastStoreOwner", "last_store_owner", "conflict")<{ readonly storeId: string; readonly userId: string }> {
  get problemExtensions() {
    return { store_id: this.storeId, user_id: this.userId };
  }
}
