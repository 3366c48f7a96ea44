/**
 * Scheduled orders (spec: should-have): the customer picks a delivery slot instead of "as soon
 * as possible". A slot starts on a quarter hour, at least 30 minutes and at most 7 days ahead
 * (a card authorization is held for about a week); anything else is 422 on `scheduled_for`.
 * Dispatch of a scheduled order starts 20 minutes before its slot, by a durable timer.
 */
import { Effect } from "effect";
import { ValidationFailed } from "../kernel/Errors.js";

/** Slots start on multiples of this. */
export const slotMinutes = 15;
/** The earliest slot is this far ahead of the quote. */
export const minScheduleLeadMs = 30 * 60_000;
/** The latest slot is this far ahead of the quote. */
export const maxScheduleAheadMs = 7 * 24 * 3600_000;
/** Dispatch of a scheduled delivery starts this long before its slot. */
export const scheduledDispatchLeadMs = 20 * 60_000;

/** Checks the requested slot against `at` (the quote's time). */
export const validateSlot = (scheduledFor: Date, at: Date): Effect.Effect<Date, ValidationFailed> => {
  const t = scheduledFor.getTime();
  const fail = (message: string) => Effect.fail(new ValidationFailed({ errors: [{ path: "scheduled_for", message }] }));
  if (!Number.isFinite(t)) return fail("must be an RFC 3339 time");
  if (t % (slotMinutes * 60_000) !== 0) return fail(`must start on a ${slotMinutes}-minute boundary (e.g. 18:00, 18:15)`);
  if (t < at.getTime() + minScheduleLeadMs) return fail(`must be at least ${minScheduleLeadMs / 60_000} minutes ahead`);
  if (t > at.getTime() + maxScheduleAheadMs) return fail(`must be at most ${maxScheduleAheadMs / 86_400_000} days ahead`);
  return Effect.succeed(scheduledFor);
};

/** When dispatch of a delivery in `scheduledFor`'s slot starts (null: as soon as possible). */
export const dispatchStartOf = (scheduledFor: Date | null): Date | null =>
  scheduledFor === null ? null : new Date(scheduledFor.getTime() - scheduledDispatchLeadMs);
