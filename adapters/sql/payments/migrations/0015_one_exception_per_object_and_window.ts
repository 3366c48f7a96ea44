/**
 * Payments migration 15: one reconciliation exception per provider object and settlement window
 * (spec, Events: ReconciliationMismatchFound is "Unique per provider object and settlement
 * window"); an object's several mismatches of a window are one exception carrying every kind.
 * Migration 2's UNIQUE (provider_object, settlement_window, kind) is implied by this one and
 * stays (SQLite cannot drop a table constraint). A database already holding two exceptions of
 * one object and window refuses this migration: an operator resolves them first (nothing is
 * merged or deleted automatically; exceptions and their outcomes are an audit record).
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE UNIQUE INDEX payment_reconciliation_exceptions_per_window ON payment_reconciliation_exceptions (provider_object, settlement_window)`,
];

/** Version 15 of the payment module. */
export const paymentsMigration0015OneExceptionPerObjectAndWindow: Migration = {
  version: 15,
  name: "one_exception_per_object_and_window",
  sqlite: statements,
  postgres: statements,
};
