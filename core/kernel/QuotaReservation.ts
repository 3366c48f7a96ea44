/**
 * Quota reservation: bytes (or any unit) are reserved against a limit before work starts,
 * then committed into `used` when the work succeeds or released when it does not. The counter
 * never goes above the limit or below zero, and each reservation is settled exactly once.
 * This is the pure model; storage keeps the same rules under a row lock.
 */
import { Data, Effect } from "effect";
import { Conflict, NotFound, ValidationFailed } from "./Errors.js";

/** A reservation that would take the counter above its limit (422 quota_exceeded). */
export class QuotaExceeded extends Data.TaggedError("QuotaExceeded")<{
  readonly limit: number;
  readonly used: number;
  readonly reserved: number;
  readonly requested: number;
  readonly detail?: string;
}> {
  readonly code = "quota_exceeded";
  readonly category = "unprocessable" as const;
}

/** A reservation that was already committed or released (409 reservation_settled). */
export class ReservationAlreadySettled extends Data.TaggedError("ReservationAlreadySettled")<{
  readonly id: string;
  readonly state: "committed" | "released";
  readonly detail?: string;
}> {
  readonly code = "reservation_settled";
  readonly category = "conflict" as const;
}

/** Where one reservation stands. */
export type ReservationState = "reserved" | "committed" | "released";

/** One reservation: how much it holds and whether it is settled. */
export interface Reservation {
  readonly bytes: number;
  readonly state: ReservationState;
}

/** The counter: `used` is committed, `reserved` is held by open reservations. */
export interface QuotaState {
  readonly limit: number;
  readonly used: number;
  readonly reserved: number;
  readonly reservations: ReadonlyMap<string, Reservation>;
}

const invalid = (path: string, message: string) => new ValidationFailed({ errors: [{ path, message }] });

/** A counter with nothing reserved; `used` defaults to zero. */
export const initialQuota = (limit: number, used = 0): Effect.Effect<QuotaState, ValidationFailed> =>
  !Number.isSafeInteger(limit) || limit < 0
    ? Effect.fail(invalid("limit", "must be a non-negative integer"))
    : !Number.isSafeInteger(used) || used < 0 || used > limit
      ? Effect.fail(invalid("used", "must be an integer between 0 and the limit"))
      : Effect.succeed({ limit, used, reserved: 0, reservations: new Map() });

/** How much can still be reserved. */
export const available = (state: QuotaState): number => state.limit - state.used - state.reserved;

const withReservation = (state: QuotaState, id: string, reservation: Reservation, used: number, reserved: number): QuotaState => {
  const reservations = new Map(state.reservations);
  reservations.set(id, reservation);
  return { limit: state.limit, used, reserved, reservations };
};

/** Holds `bytes` under `id`; fails QuotaExceeded when used + reserved + bytes would pass the limit. */
export const reserve = (
  state: QuotaState,
  id: string,
  bytes: number,
): Effect.Effect<QuotaState, QuotaExceeded | ValidationFailed | Conflict> => {
  if (!Number.isSafeInteger(bytes) || bytes < 0) return Effect.fail(invalid("bytes", "must be a non-negative integer"));
  if (state.reservations.has(id)) {
    return Effect.fail(new Conflict({ code: "reservation_exists", detail: `reservation ${id} already exists` }));
  }
  if (bytes > available(state)) {
    return Effect.fail(
      new QuotaExceeded({
        limit: state.limit,
        used: state.used,
        reserved: state.reserved,
        requested: bytes,
        detail: `${bytes} requested, ${available(state)} available`,
      }),
    );
  }
  return Effect.succeed(withReservation(state, id, { bytes, state: "reserved" }, state.used, state.reserved + bytes));
};

// The single gate of both settlements: an open reservation, or the reason there is none.
const openReservation = (
  state: QuotaState,
  id: string,
): Effect.Effect<Reservation, NotFound | ReservationAlreadySettled> => {
  const reservation = state.reservations.get(id);
  if (reservation === undefined) return Effect.fail(new NotFound({ resource: "reservation", detail: id }));
  if (reservation.state !== "reserved") {
    return Effect.fail(
      new ReservationAlreadySettled({ id, state: reservation.state, detail: `reservation ${id} is already ${reservation.state}` }),
    );
  }
  return Effect.succeed(reservation);
};

/** Moves a reservation's bytes from reserved to used. */
export const commit = (state: QuotaState, id: string): Effect.Effect<QuotaState, NotFound | ReservationAlreadySettled> =>
  Effect.map(openReservation(state, id), (r) =>
    withReservation(state, id, { bytes: r.bytes, state: "committed" }, state.used + r.bytes, state.reserved - r.bytes),
  );

/** Gives a reservation's bytes back. */
export const release = (state: QuotaState, id: string): Effect.Effect<QuotaState, NotFound | ReservationAlreadySettled> =>
  Effect.map(openReservation(state, id), (r) =>
    withReservation(state, id, { bytes: r.bytes, state: "released" }, state.used, state.reserved - r.bytes),
  );
