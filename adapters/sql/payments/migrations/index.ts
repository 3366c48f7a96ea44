/**
 * The payments module's migrations, one file per version (`NNNN_name.ts`). A released migration never
 * changes and a version number is never reused: version 3 was never released (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";
import { paymentsMigration0001 } from "./0001_payment_tables.js";
import { paymentsMigration0004 } from "./0004_client_secrets_merchant_webhooks_disputes.js";
import { paymentsMigration0005DeadDeliveries } from "./0005_payment_webhook_deliveries_dead_index.js";
import { paymentsMigration0006ExceptionReports } from "./0006_payment_exception_reports.js";
import { paymentsMigration0007LedgerBalanced } from "./0007_ledger_balanced.js";
import { paymentsMigration0008LedgerEntriesByTransaction } from "./0008_ledger_entries_by_transaction.js";
import { paymentsMigration0009IntentsByProviderPayment } from "./0009_intents_by_provider_payment.js";
import { paymentsMigration0010StatusIndexesForOpenWork } from "./0010_status_indexes_for_open_work.js";
import { paymentsMigration0011LedgerTransactionsByTime } from "./0011_ledger_transactions_by_time.js";
import { paymentsMigration0012RefundsByRequestKey } from "./0012_refunds_by_request_key.js";
import { paymentsMigration0013PendingAttemptsByAge } from "./0013_pending_attempts_by_age.js";
import { paymentsMigration0014TenantCompositeReferences } from "./0014_tenant_composite_references.js";
import { paymentsMigration0015OneExceptionPerObjectAndWindow } from "./0015_one_exception_per_object_and_window.js";
import { paymentsMigration0016RefundsWithinCaptured } from "./0016_refunds_within_captured.js";
import { paymentsMigration0017RefundStateMachine } from "./0017_refund_state_machine.js";
import { paymentsMigration0018IntentTransitions } from "./0018_intent_transitions.js";
import { paymentsMigration0019PaymentMethodsAreTokens } from "./0019_payment_methods_are_tokens.js";
import { paymentsMigration0020LedgerTransactionsHaveEntries } from "./0020_ledger_transactions_have_entries.js";
import { paymentsMigration0021ProviderHealthIndexes } from "./0021_provider_health_indexes.js";
import { paymentsMigration0022WebhookSecretRotation } from "./0022_webhook_secret_rotation.js";
import { paymentsMigration0023ApiKeysByMerchant } from "./0023_api_keys_by_merchant.js";
import { paymentsMigration0024RiskHolds } from "./0024_risk_holds.js";
import { paymentsMigration0025SucceededIntentsCaptured } from "./0025_succeeded_intents_captured.js";
import { paymentsMigration0026AttemptTransitions } from "./0026_attempt_transitions.js";
import { paymentsMigration0027CurrencyCodes } from "./0027_currency_codes.js";
import { paymentsMigration0028PlatformExceptionsAcknowledged } from "./0028_platform_exceptions_acknowledged.js";
import { paymentsMigration0029LedgerAccountsOfOwnMerchant } from "./0029_ledger_accounts_of_own_merchant.js";
import { paymentsMigration0030SucceededHasItsPosting } from "./0030_succeeded_has_its_posting.js";
import { paymentsMigration0031SettledOutcome } from "./0031_settled_outcome.js";
import { paymentsMigration0032InboxPayloadMinimizedOnce } from "./0032_inbox_payload_minimized_once.js";
import { paymentsMigration0033WebhookUrlsHttpsOrLoopback } from "./0033_webhook_urls_https_or_loopback.js";
import { paymentsMigration0002Reconciliation } from "./0002_provider_event_inbox_and_reconciliation.js";

/** Migrations of the payments module, in version order. */
export const paymentsMigrations: ReadonlyArray<Migration> = [
  paymentsMigration0001,
  paymentsMigration0002Reconciliation,
  paymentsMigration0004,
  paymentsMigration0005DeadDeliveries,
  paymentsMigration0006ExceptionReports,
  paymentsMigration0007LedgerBalanced,
  paymentsMigration0008LedgerEntriesByTransaction,
  paymentsMigration0009IntentsByProviderPayment,
  paymentsMigration0010StatusIndexesForOpenWork,
  paymentsMigration0011LedgerTransactionsByTime,
  paymentsMigration0012RefundsByRequestKey,
  paymentsMigration0013PendingAttemptsByAge,
  paymentsMigration0014TenantCompositeReferences,
  paymentsMigration0015OneExceptionPerObjectAndWindow,
  paymentsMigration0016RefundsWithinCaptured,
  paymentsMigration0017RefundStateMachine,
  paymentsMigration0018IntentTransitions,
  paymentsMigration0019PaymentMethodsAreTokens,
  paymentsMigration0020LedgerTransactionsHaveEntries,
  paymentsMigration0021ProviderHealthIndexes,
  paymentsMigration0022WebhookSecretRotation,
  paymentsMigration0023ApiKeysByMerchant,
  paymentsMigration0024RiskHolds,
  paymentsMigration0025SucceededIntentsCaptured,
  paymentsMigration0026AttemptTransitions,
  paymentsMigration0027CurrencyCodes,
  paymentsMigration0028PlatformExceptionsAcknowledged,
  paymentsMigration0029LedgerAccountsOfOwnMerchant,
  paymentsMigration0030SucceededHasItsPosting,
  paymentsMigration0031SettledOutcome,
  paymentsMigration0032InboxPayloadMinimizedOnce,
  paymentsMigration0033WebhookUrlsHttpsOrLoopback,
];
