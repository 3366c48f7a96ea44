/** The e-commerce module's migrations, in version order (a released version never changes). */
import type { Migration } from "../../Migration.js";
import { commerceMigration0001Tables } from "./0001_commerce_tables.js";
import { commerceMigration0002ShipmentTracking } from "./0002_shipment_tracking.js";
import { commerceMigration0003OrderStatusIndex } from "./0003_order_status_index.js";
import { commerceMigration0004SearchKeys } from "./0004_search_keys.js";
import { commerceMigration0005CustomerDeclinesIndex } from "./0005_customer_declines_index.js";
import { commerceMigration0006SearchByStore } from "./0006_search_by_store.js";
import { commerceMigration0007ReturnedQuantities } from "./0007_returned_quantities.js";
import { commerceMigration0008UniqueTrackingNumbers } from "./0008_unique_tracking_numbers.js";
import { commerceMigration0009CartSeenPrices } from "./0009_cart_seen_prices.js";
import { commerceMigration0010CancellationRequestedFinal } from "./0010_cancellation_requested_final.js";
import { commerceMigration0011SearchIndexWithoutPendingList } from "./0011_search_index_without_pending_list.js";
import { commerceMigration0012OrdersImmutableSnapshot } from "./0012_orders_immutable_snapshot.js";
import { commerceMigration0013ReservationStatusMoves } from "./0013_reservation_status_moves.js";
import { commerceMigration0014FulfillmentTaskAssignee } from "./0014_fulfillment_task_assignee.js";
import { commerceMigration0015LocationsPerStoreBounded } from "./0015_locations_per_store_bounded.js";
import { commerceMigration0016StaffRoleRevocations } from "./0016_staff_role_revocations.js";
import { commerceMigration0017OrderPaymentMoves } from "./0017_order_payment_moves.js";
import { commerceMigration0018ReturnStageMoves } from "./0018_return_stage_moves.js";
import { commerceMigration0019CartShipmentTaskMoves } from "./0019_cart_shipment_task_moves.js";
import { commerceMigration0020CheckoutRecordsReturnedUnitsDescriptions } from "./0020_checkout_records_returned_units_descriptions.js";
import { commerceMigration0021GuestOrdersMinimizedAt } from "./0021_guest_orders_minimized_at.js";
import { commerceMigration0022OrderPromotionUses } from "./0022_order_promotion_uses.js";
import { commerceMigration0023ReturnRefundFailed } from "./0023_return_refund_failed.js";
import { commerceMigration0024ShopperTextsClearedByRetention } from "./0024_shopper_texts_cleared_by_retention.js";
import { commerceMigration0025RefusedRefundsMoved } from "./0025_refused_refunds_moved.js";

export const commerceMigrations: ReadonlyArray<Migration> = [commerceMigration0001Tables, commerceMigration0002ShipmentTracking, commerceMigration0003OrderStatusIndex, commerceMigration0004SearchKeys, commerceMigration0005CustomerDeclinesIndex, commerceMigration0006SearchByStore, commerceMigration0007ReturnedQuantities, commerceMigration0008UniqueTrackingNumbers, commerceMigration0009CartSeenPrices, commerceMigration0010CancellationRequestedFinal, commerceMigration0011SearchIndexWithoutPendingList, commerceMigration0012OrdersImmutableSnapshot, commerceMigration0013ReservationStatusMoves, commerceMigration0014FulfillmentTaskAssignee, commerceMigration0015LocationsPerStoreBounded, commerceMigration0016StaffRoleRevocations, commerceMigration0017OrderPaymentMoves, commerceMigration0018ReturnStageMoves, commerceMigration0019CartShipmentTaskMoves, commerceMigration0020CheckoutRecordsReturnedUnitsDescriptions, commerceMigration0021GuestOrdersMinimizedAt, commerceMigration0022OrderPromotionUses, commerceMigration0023ReturnRefundFailed, commerceMigration0024ShopperTextsClearedByRetention, commerceMigration0025RefusedRefundsMoved];
