/** The delivery module's migrations, in version order (a released version never changes). */
import type { Migration } from "../../Migration.js";
import { deliveryMigration0001 } from "./0001_delivery_tables.js";
import { deliveryMigration0002DeliveryStatusIndex } from "./0002_delivery_status_index.js";
import { deliveryMigration0003Payables } from "./0003_payables.js";
import { deliveryMigration0004ChatMessages } from "./0004_chat_messages.js";
import { deliveryMigration0005ScheduledOrders } from "./0005_scheduled_orders.js";
import { deliveryMigration0006Substitutions } from "./0006_substitutions.js";
import { deliveryMigration0007DiscoveryIndex } from "./0007_discovery_index.js";
import { deliveryMigration0008QuotePlacements } from "./0008_quote_placements.js";
import { deliveryMigration0009DispatcherLocationAccess } from "./0009_dispatcher_location_access.js";
import { deliveryMigration0010SettlementReplays } from "./0010_settlement_replays.js";
import { deliveryMigration0011DropoffRedaction } from "./0011_dropoff_redaction.js";
import { deliveryMigration0012StaffRemovals } from "./0012_staff_removals.js";
import { deliveryMigration0013TransitionTables } from "./0013_transition_tables.js";
import { deliveryMigration0014ReversingPayables } from "./0014_reversing_payables.js";
import { deliveryMigration0015PaymentReplays } from "./0015_payment_replays.js";
import { deliveryMigration0016PaymentMethodRedaction } from "./0016_payment_method_redaction.js";
import { deliveryMigration0017Refunds } from "./0017_refunds.js";
import { deliveryMigration0018ChatAccessLog } from "./0018_chat_access_log.js";
import { deliveryMigration0019RestaurantCurrencyFixed } from "./0019_restaurant_currency_fixed.js";
import { deliveryMigration0020CouriersOnlinePosition } from "./0020_couriers_online_position.js";

export const deliveryMigrations: ReadonlyArray<Migration> = [deliveryMigration0001, deliveryMigration0002DeliveryStatusIndex, deliveryMigration0003Payables, deliveryMigration0004ChatMessages, deliveryMigration0005ScheduledOrders, deliveryMigration0006Substitutions, deliveryMigration0007DiscoveryIndex, deliveryMigration0008QuotePlacements, deliveryMigration0009DispatcherLocationAccess, deliveryMigration0010SettlementReplays, deliveryMigration0011DropoffRedaction, deliveryMigration0012StaffRemovals, deliveryMigration0013TransitionTables, deliveryMigration0014ReversingPayables, deliveryMigration0015PaymentReplays, deliveryMigration0016PaymentMethodRedaction, deliveryMigration0017Refunds, deliveryMigration0018ChatAccessLog, deliveryMigration0019RestaurantCurrencyFixed, deliveryMigration0020CouriersOnlinePosition];
