/**
 * Stock per variant and location, audited adjustments and reservations. Every change of
 * `reserved` or `on_hand` is one conditional UPDATE whose WHERE states the rule (enough
 * available, reservation still in the expected status), so races are decided by the database.
 */
import { Context, type Effect } from "effect";
import type { LocationId, StoreId, VariantId } from "../../core/commerce/model/Ids.js";
import type { Reservation, ReservationStatus } from "../../core/commerce/model/Reservation.js";
import type { StockAdjustment, StockLevel } from "../../core/commerce/model/StockLevel.js";

export interface InventoryRepository {
  readonly findStock: (variantId: string, locationId: string) => Effect.Effect<StockLevel | null>;
  /** Stock rows of these variants, every location. */
  readonly stockOf: (variantIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StockLevel>>;
  /**
   * Adds `delta` (at most `maxOnHand` either way) to on_hand (creating the row at 0 first) if the
   * result stays at least `reserved` and at most `maxOnHand`; the row after, or null when refused.
   */
  readonly adjust: (input: {
    readonly storeId: StoreId;
    readonly variantId: VariantId;
    readonly locationId: LocationId;
    readonly delta: number;
    readonly now: Date;
  }) => Effect.Effect<StockLevel | null>;
  readonly insertAdjustment: (adjustment: StockAdjustment) => Effect.Effect<void>;
  /** reserved += quantity where on_hand − reserved ≥ quantity; false when not enough is available. */
  readonly reserve: (variantId: string, locationId: string, quantity: number, now: Date) => Effect.Effect<boolean>;
  /** reserved −= quantity (a release). */
  readonly unreserve: (variantId: string, locationId: string, quantity: number, now: Date) => Effect.Effect<void>;
  /** on_hand and reserved both −= quantity (a dispatch consumed the reservation). */
  readonly consume: (variantId: string, locationId: string, quantity: number, now: Date) => Effect.Effect<void>;
  /** Inserts a checkout's reservations (one statement). */
  readonly insertReservations: (reservations: ReadonlyArray<Reservation>) => Effect.Effect<void>;
  readonly findReservation: (id: string) => Effect.Effect<Reservation | null>;
  readonly reservationsOfOrder: (orderId: string) => Effect.Effect<ReadonlyArray<Reservation>>;
  /** Moves the reservation to `to` if its status is one of `from`; false when it was not (someone else moved it). */
  readonly transitionReservation: (
    id: string,
    from: ReadonlyArray<ReservationStatus>,
    to: ReservationStatus,
    now: Date,
  ) => Effect.Effect<boolean>;
  /** Moves every reservation of the order that is in one of `from` to `to` (one conditional statement); how many moved. */
  readonly transitionReservationsOfOrder: (
    orderId: string,
    from: ReadonlyArray<ReservationStatus>,
    to: ReservationStatus,
    now: Date,
  ) => Effect.Effect<number>;
}
export const InventoryRepository = Context.GenericTag<InventoryRepository>("domainkit/commerce/InventoryRepository");
