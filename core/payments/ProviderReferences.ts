/**
 * Stable provider idempotency references (docs/conventions.md, Idempotency). Each is derived from
 * our own identifiers only, so a retry of the same step after a crash or a timeout sends the
 * same reference and the provider answers with what it already did instead of acting twice.
 */

/** The reference of attempt `number` of an intent. */
export const attemptReference = (intentId: string, number: number): string => `pi_${intentId}_attempt_${number}`;

/** The reference of the (single) capture of an intent. */
export const captureReference = (intentId: string): string => `pi_${intentId}_capture`;

/** The reference of the void of an intent's authorization. */
export const voidReference = (intentId: string): string => `pi_${intentId}_void`;

/** The reference of a refund. */
export const refundReference = (refundId: string): string => `re_${refundId}`;
