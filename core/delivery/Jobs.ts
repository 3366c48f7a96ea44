/** The delivery module's durable jobs (docs/adding-a-module.md, 2. Core), each defined next to its use case. */
import type { Effect } from "effect";
import type { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import type { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import type { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import type { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import type { Ids } from "../../ports/Ids.js";
import type { Job, Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { RealtimeBus } from "../../ports/Realtime.js";
import type { Transactions } from "../../ports/Transactions.js";
import { acceptanceDeadlineJob } from "./AcceptanceDeadline.js";
import { offerExpiryJob, withdrawOffersJob } from "./Dispatch.js";
import { paymentCaptureJob, paymentVoidJob } from "./OrderPayments.js";
import { paymentResolveJob } from "./ResolvePayment.js";
import { locationRetentionJob } from "./LocationRetention.js";
import { trackingClosedJob } from "./TrackingClosed.js";
import { pushJob } from "./PushNotifications.js";
import type { PushNotifier } from "../../ports/delivery/PushNotifier.js";
import type { Payables } from "../../ports/delivery/Payables.js";
import type { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import type { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { settlementJob } from "./SettlePayouts.js";
import { scheduledDispatchJob } from "./ScheduledDispatch.js";
import { placementReleaseJob } from "./PlacementRelease.js";
import { refundJob } from "./OrderRefunds.js";
import type { Refunds } from "../../ports/delivery/Refunds.js";

/** Every service a delivery job may need. */
export type DeliveryJobServices = Ids | Jobs | Outbox | Transactions | PaymentGateway | OrdersRepository | RestaurantsRepository | DispatchRepository | DeliverySettings | LocationSamples | RealtimeBus | PushNotifier | SettlementLedger | Payables | ChatMessages | Refunds;

/** A delivery job as the worker runs it. */
export interface DeliveryJob {
  readonly kind: string;
  readonly run: (job: Job) => Effect.Effect<void, unknown, DeliveryJobServices>;
}

export const deliveryJobs: ReadonlyArray<DeliveryJob> = [acceptanceDeadlineJob, offerExpiryJob, withdrawOffersJob, paymentVoidJob, paymentCaptureJob, paymentResolveJob, locationRetentionJob, trackingClosedJob, pushJob, settlementJob, scheduledDispatchJob, placementReleaseJob, refundJob];
