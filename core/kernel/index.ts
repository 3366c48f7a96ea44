/**
 * The shared kernel: typed errors, the event envelope and the small pure cores every module
 * builds on. Modules may also import one core as a namespace (`import * as Money from ...`).
 */
export * from "./Errors.js";
export * from "./EventEnvelope.js";
export * from "./Money.js";
export * from "./Versioning.js";
export * from "./QuotaReservation.js";
export * from "./Ledger.js";
export * from "./WinnerElection.js";
export * from "./Idempotency.js";
export * from "./Cursor.js";
export * from "./IndependentReads.js";
export * from "./FollowUp.js";
