/** Couriers, deliveries with their status history, and courier offers (dl_couriers, dl_deliveries, dl_delivery_status_changes, dl_courier_offers). */
import { Context, type Effect } from "effect";
import type { Courier } from "../../core/delivery/model/Courier.js";
import type { CourierOffer, OfferStatus } from "../../core/delivery/model/CourierOffer.js";
import type { Delivery } from "../../core/delivery/model/Delivery.js";
import type { DeliveryStatusChange } from "../../core/delivery/model/DeliveryStatusChange.js";

export interface DispatchRepository {
  /** Registers a courier; when the user already is one, writes nothing and answers that courier. */
  readonly insertCourier: (courier: Courier) => Effect.Effect<Courier>;
  /** The courier; `forUpdate` locks its row until the transaction ends (Postgres), so one courier's assignments run one at a time. */
  readonly findCourier: (id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Courier | null>;
  readonly findCourierByUser: (userId: string) => Effect.Effect<Courier | null>;
  readonly setCourierOnline: (id: string, online: boolean) => Effect.Effect<void>;
  /** Sets the courier's dispatch position (the caller passes it rounded: approximate, not retained history). */
  readonly setCourierLocation: (id: string, location: { readonly lat: number; readonly lng: number; readonly at: Date }) => Effect.Effect<void>;
  /** Forgets every courier position located before `cutoff` (retention); answers how many. */
  readonly clearCourierLocationsBefore: (cutoff: Date) => Effect.Effect<number>;
  /**
   * Redacts the drop-off (point to 3 decimals, address masked) of the deliveries delivered or
   * cancelled before `endedBefore` and not redacted yet (retention); answers how many.
   */
  readonly redactDropoffsEndedBefore: (endedBefore: Date) => Effect.Effect<number>;
  /**
   * Online couriers with a known location within `withinM` metres of `near` (the distance of
   * core/delivery/model/Geo.ts `distanceMetres`), not on an active delivery and never offered
   * `deliveryId`, nearest to `near` first; at most `limit`.
   */
  readonly candidates: (
    deliveryId: string,
    near: { readonly lat: number; readonly lng: number },
    limit: number,
    withinM: number,
  ) => Effect.Effect<ReadonlyArray<Courier>>;

  /** Creates the order's delivery unless it has one (one per order); answers the stored one. */
  readonly insertDelivery: (delivery: Delivery) => Effect.Effect<{ readonly delivery: Delivery; readonly created: boolean }>;
  readonly findDelivery: (id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Delivery | null>;
  readonly findDeliveryByOrder: (orderId: string) => Effect.Effect<Delivery | null>;
  /** Unfinished deliveries picked up inside the region, by id after `afterId`. */
  readonly deliveriesInRegion: (query: {
    readonly region: { readonly minLat: number; readonly minLng: number; readonly maxLat: number; readonly maxLng: number };
    readonly afterId: string | null;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Delivery>>;
  /** The courier's deliveries that are assigned or picked up (its active jobs). */
  readonly activeDeliveriesOf: (courierId: string) => Effect.Effect<ReadonlyArray<Delivery>>;
  /**
   * The winner election: `UPDATE ... SET courier_id = $courier, status = 'assigned', version =
   * version + 1 WHERE id = $id AND courier_id IS NULL AND status = 'pending'`. Answers the
   * assigned delivery, or null when someone else was first (or the delivery is not pending).
   */
  readonly assignCourier: (deliveryId: string, courierId: string, at: Date) => Effect.Effect<Delivery | null>;
  /** Writes `next` when the stored version is still `expectedVersion`; false otherwise. */
  readonly updateDelivery: (next: Delivery, expectedVersion: number) => Effect.Effect<boolean>;
  readonly insertStatusChange: (change: DeliveryStatusChange) => Effect.Effect<void>;
  readonly findStatusChange: (deliveryId: string, transitionId: string) => Effect.Effect<DeliveryStatusChange | null>;
  readonly statusHistory: (deliveryId: string) => Effect.Effect<ReadonlyArray<DeliveryStatusChange>>;

  readonly insertOffers: (offers: ReadonlyArray<CourierOffer>) => Effect.Effect<void>;
  readonly findOffer: (id: string) => Effect.Effect<CourierOffer | null>;
  readonly offersOfDelivery: (deliveryId: string) => Effect.Effect<ReadonlyArray<CourierOffer>>;
  /** Live offers of a courier (offered, not expired at `now`), soonest expiry first. */
  readonly liveOffers: (courierId: string, now: Date) => Effect.Effect<ReadonlyArray<CourierOffer>>;
  /** Moves the offer from `from` to `to` (conditional on `from`); false when it was not in `from`. */
  readonly decideOffer: (id: string, from: OfferStatus, to: OfferStatus, at: Date) => Effect.Effect<boolean>;
  /** Marks every other offered or accepted offer of the delivery (all but `winnerOfferId`) lost; answers them. */
  readonly loseOtherOffers: (deliveryId: string, winnerOfferId: string, at: Date) => Effect.Effect<ReadonlyArray<CourierOffer>>;
  /** Expires the delivery's offers whose time has passed at `now`; answers how many. */
  readonly expireOffers: (deliveryId: string, now: Date) => Effect.Effect<number>;
}
export const DispatchRepository = Context.GenericTag<DispatchRepository>("domainkit/delivery/DispatchRepository");
