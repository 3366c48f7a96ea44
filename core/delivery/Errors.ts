/** The delivery module's errors (docs/conventions.md, Errors). HTTP statuses follow the category. */
import { DomainError } from "../kernel/Errors.js";

/** What changed between the quoted menu version and the current one; prices in the restaurant's `currency`. */
export interface MenuDiff {
  readonly current_version: number;
  readonly currency: string;
  readonly changed_prices: ReadonlyArray<{ readonly item_id: string; readonly quoted_price_minor: number; readonly current_price_minor: number }>;
  readonly unavailable_items: ReadonlyArray<string>;
  /** Items of the quote that the current version no longer has. */
  readonly removed_items: ReadonlyArray<string>;
}

/** 409: the menu version is not the current one or an item is unavailable; `diff` resolves it. */
export class MenuChanged extends DomainError("MenuChanged", "menu_changed", "conflict")<{ readonly diff: MenuDiff }> {}

/** 409: the quote has expired; quote again. */
export class QuoteExpired extends DomainError("QuoteExpired", "quote_expired", "conflict")<{ readonly quoteId: string }> {}

/** 422: the drop-off point is outside the restaurant's service zone. */
export class OutsideServiceZone extends DomainError("OutsideServiceZone", "outside_service_zone", "unprocessable")<{
  readonly distanceM: number;
  readonly serviceRadiusM: number;
}> {}

/** 422: the restaurant is closed (or suspended). */
export class RestaurantClosed extends DomainError("RestaurantClosed", "restaurant_closed", "unprocessable")<{ readonly restaurantId: string }> {}

/** 402 payment_declined: the provider declined the payment method; nothing was written. */
export class OrderPaymentDeclined extends DomainError("OrderPaymentDeclined", "payment_declined", "payment_required")<{
  readonly declineCode: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { decline_code: this.declineCode };
  }
}

/** 409: the order can no longer be accepted or rejected (cancelled, rejected, or its payment is not authorized). */
export class OrderNotAcceptable extends DomainError("OrderNotAcceptable", "order_not_acceptable", "conflict")<{
  readonly status: string;
}> {}

/** 409: an illegal order or payment transition (transition table: OrderStatus.ts). */
export class IllegalOrderTransition extends DomainError("IllegalOrderTransition", "illegal_order_transition", "conflict")<{
  readonly from: string;
  readonly to: string;
}> {}

/** 409: another courier won the delivery; `winner` names them. */
export class DeliveryAlreadyAssigned extends DomainError("DeliveryAlreadyAssigned", "delivery_already_assigned", "conflict")<{
  readonly deliveryId: string;
  readonly winner: string | null;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { delivery_id: this.deliveryId };
  }
}

/** 409: the caller's accepted offer is for a delivery that is no longer active (delivered or cancelled). */
export class DeliveryNotActive extends DomainError("DeliveryNotActive", "delivery_not_active", "conflict")<{
  readonly deliveryId: string;
  readonly status: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { delivery_id: this.deliveryId };
  }
}

/** 409: the courier already has an active delivery (assigned or picked up); one job at a time. */
export class CourierBusy extends DomainError("CourierBusy", "courier_busy", "conflict")<{ readonly courierId: string }> {}

/** 410 offer_expired: the offer's time has passed. */
export class OfferExpired extends DomainError("OfferExpired", "offer_expired", "gone")<{ readonly offerId: string }> {}

/** 409: a delivery transition the table does not permit (pickup before assignment, backwards). */
export class IllegalDeliveryTransition extends DomainError("IllegalDeliveryTransition", "illegal_delivery_transition", "conflict")<{
  readonly from: string;
  readonly to: string;
}> {}

/** 409: the expected delivery version is stale; `current` is the delivery now. */
export class DeliveryVersionConflict extends DomainError("DeliveryVersionConflict", "delivery_version_conflict", "conflict")<{
  readonly currentVersion: number;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { current_version: this.currentVersion };
  }
}

/** 422: the target status is not a delivery status. */
export class UnknownDeliveryStatus extends DomainError("UnknownDeliveryStatus", "unknown_delivery_status", "unprocessable")<{
  readonly status: string;
}> {}

/** 409: the transition id was already used for a different target status. */
export class TransitionIdReused extends DomainError("TransitionIdReused", "transition_id_reused", "conflict")<{
  readonly transitionId: string;
}> {}

/** 409: the menu was published by someone else meanwhile; publish again. */
export class MenuPublishConflict extends DomainError("MenuPublishConflict", "menu_publish_conflict", "conflict")<{
  readonly restaurantId: string;
}> {}

/** 400: discovery needs a latitude from -90 to 90 and a longitude from -180 to 180. */
export class InvalidCoordinates extends DomainError("InvalidCoordinates", "invalid_coordinates", "bad_request") {}

/** 403: a sensitive dispatcher action needs a recent sign-in (the token's `auth_time`). */
export class StepUpRequired extends DomainError("StepUpRequired", "step_up_required", "forbidden")<{ readonly maxAgeSeconds: number }> {
  get problemExtensions(): Record<string, unknown> {
    return { max_age_seconds: this.maxAgeSeconds };
  }
}

/** The settlement job found no posted settlement for a completed order (it retries, then dead-letters). */
export class SettlementNotPosted extends DomainError("SettlementNotPosted", "settlement_not_posted", "conflict")<{ readonly orderId: string }> {}

/** 409: the settlement job to replay is not dead (already replayed, running or done). */
export class NotADeadSettlement extends DomainError("NotADeadSettlement", "not_a_dead_settlement", "conflict")<{ readonly jobId: string }> {}

/** 409: the payment step to replay is not dead (already replayed, running or done). */
export class NotADeadPaymentStep extends DomainError("NotADeadPaymentStep", "not_a_dead_payment_step", "conflict")<{ readonly jobId: string }> {}

/** 409: chat is open only while the delivery has an assigned courier and is not finished. */
export class ChatClosed extends DomainError("ChatClosed", "chat_closed", "conflict")<{ readonly deliveryStatus: string }> {}

/** 409: substitutions are proposed only before pickup, on an authorized or accepted order. */
export class SubstitutionNotAllowed extends DomainError("SubstitutionNotAllowed", "substitution_not_allowed", "conflict")<{ readonly status: string }> {}

/** 409: the line already has a substitution, or the substitution was already decided otherwise. */
export class SubstitutionConflict extends DomainError("SubstitutionConflict", "substitution_conflict", "conflict")<{ readonly substitutionId: string | null }> {}

/** 409: removing this staff member would leave the restaurant without staff (nobody could run it). */
export class LastStaffMember extends DomainError("LastStaffMember", "last_staff_member", "conflict")<{ readonly restaurantId: string }> {}

/** 409: only a completed order whose payment is captured is refunded (a capture still pending is waited for). */
export class OrderNotRefundable extends DomainError("OrderNotRefundable", "order_not_refundable", "conflict")<{
  readonly status: string;
  readonly paymentState: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { status: this.status, payment_state: this.paymentState };
  }
}

/** 409: the refund would take the order's refunds above its captured amount; `refundable_minor` is what is left, in the order's `currency`. */
export class RefundExceedsCaptured extends DomainError("RefundExceedsCaptured", "refund_exceeds_captured", "conflict")<{
  readonly refundableMinor: number;
  readonly currency: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { refundable_minor: this.refundableMinor, currency: this.currency };
  }
}

/** The payment has not answered a refund yet (the refund job retries). */
export class RefundPending extends DomainError("RefundPending", "refund_pending", "unavailable")<{ readonly refundId: string }> {}

/** 409: support cancels only an accepted order whose meal is not picked up (its delivery pending or assigned). */
export class OrderNotCancellable extends DomainError("OrderNotCancellable", "order_not_cancellable", "conflict")<{
  readonly status: string;
  readonly deliveryStatus: string | null;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { status: this.status, delivery_status: this.deliveryStatus };
  }
}
